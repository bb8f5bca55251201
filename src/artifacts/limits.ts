import { z } from 'zod';

/** Size and count bounds enforced while packing and (streaming) while decoding an artifact. */
export interface ArtifactLimits {
  /** Bytes of the upload body (the transport cap). */
  maxRequestBytes: number;
  /** Bytes of the gzip artifact. */
  maxGzipBytes: number;
  /** Bytes of the decompressed canonical document; inflation stops as soon as it is exceeded. */
  maxDecompressedBytes: number;
  /** Number of files. */
  maxFiles: number;
  /** Bytes of one file. */
  maxFileBytes: number;
  /** Bytes of all files together. */
  maxAggregateBytes: number;
}

const MiB = 1024 * 1024;

/** Defaults (docs/artifact-format.md "Limits"); the server may lower or raise them per deployment. */
export const defaultArtifactLimits: ArtifactLimits = Object.freeze({
  maxRequestBytes: 132 * MiB,
  maxGzipBytes: 128 * MiB,
  maxDecompressedBytes: 512 * MiB,
  maxFiles: 10_000,
  maxFileBytes: 64 * MiB,
  maxAggregateBytes: 256 * MiB,
});

const limit = z.number().int().positive();
const limitsOverride = z.strictObject({
  maxRequestBytes: limit.optional(),
  maxGzipBytes: limit.optional(),
  maxDecompressedBytes: limit.optional(),
  maxFiles: limit.optional(),
  maxFileBytes: limit.optional(),
  maxAggregateBytes: limit.optional(),
});

/** Defaults overlaid with a caller's partial limits (validated: positive integers only). */
export function resolveLimits(overrides: Partial<ArtifactLimits> | undefined): ArtifactLimits {
  const parsed = limitsOverride.parse(overrides ?? {});
  const defined = Object.fromEntries(Object.entries(parsed).filter(([, v]) => v !== undefined));
  return { ...defaultArtifactLimits, ...defined };
}

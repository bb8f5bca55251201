// Fetch a release artifact from the endpoint into /tmp, prove it is the release the service spec
// names (its SHA-256), and extract it with the platform's own artifact reader.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeAndExtractArtifact } from '../../../src/artifacts/index.js';
import { SvcError } from '../../../src/core/errors.js';
import type { EndpointClient } from './endpoint-client.js';

export interface FetchReleaseInput {
  url: URL;
  /** The digest from the service spec (SVC_RELEASE_DIGEST), not from the endpoint's answer. */
  digest: string;
  tmpDir: string;
  /** Must not exist yet; the verified files appear there at once or not at all. */
  releaseDir: string;
}

/** The artifact's bytes pinned by digest are the ones the control plane accepted under its own limits. */
const NO_FURTHER_BOUND = Number.MAX_SAFE_INTEGER;

export async function fetchRelease(client: EndpointClient, input: FetchReleaseInput): Promise<void> {
  const file = join(input.tmpDir, `.svc-release-${randomBytes(6).toString('hex')}.svc.gz`);
  try {
    const got = await client.download(input.url, file);
    if (got.sha256 !== input.digest) {
      throw new SvcError('SVC_ARTIFACT_DIGEST_MISMATCH', `The artifact from ${input.url.pathname} has SHA-256 ${got.sha256}; the task runs ${input.digest}`);
    }
    // Bound the reader by the bytes at hand; the tmpfs size bounds the extracted files.
    await decodeAndExtractArtifact(createReadStream(file), input.releaseDir, {
      expectedDigest: input.digest,
      limits: {
        maxRequestBytes: Math.max(got.sizeBytes, 1),
        maxGzipBytes: Math.max(got.sizeBytes, 1),
        maxDecompressedBytes: NO_FURTHER_BOUND,
        maxFiles: NO_FURTHER_BOUND,
        maxFileBytes: NO_FURTHER_BOUND,
        maxAggregateBytes: NO_FURTHER_BOUND,
      },
    });
  } finally {
    await rm(file, { force: true });
  }
}

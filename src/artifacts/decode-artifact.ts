// Decode and verify an artifact in one streaming pass with every limit enforced as bytes arrive.
import { createHash } from 'node:crypto';
import { createGunzip } from 'node:zlib';
import { SvcError } from '../core/errors.js';
import { MemorySink, type ContentSink } from './content-sink.js';
import type { DeployConfig } from './deploy-config.js';
import type { ArtifactDocument } from './document.js';
import { DocumentParser, type DecodedFile, type ParsedDocument } from './document-parser.js';
import { resolveLimits, type ArtifactLimits } from './limits.js';

/** A fully verified artifact: digest, document, normalized config and file contents. */
export interface DecodedArtifact {
  /** Lowercase hex SHA-256 of the gzip bytes. */
  digest: string;
  gzipBytes: number;
  document: ArtifactDocument;
  config: DeployConfig;
  files: DecodedFile[];
  /** Sum of the file sizes. */
  totalBytes: number;
}

/** Options of decodeArtifact. */
export interface DecodeOptions {
  limits?: Partial<ArtifactLimits>;
  /** Digest the sender claimed (lowercase hex SHA-256 of the gzip bytes); a mismatch is SVC_ARTIFACT_DIGEST_MISMATCH. */
  expectedDigest?: string;
}

/**
 * Decode and verify an artifact: request/gzip/decompressed size, file count, file size, aggregate size,
 * canonical form, every path, mode and SHA-256, the configuration and the artifact digest. The file
 * contents are returned in memory (up to maxAggregateBytes); stageArtifact writes them to disk instead.
 */
export async function decodeArtifact(source: Buffer | AsyncIterable<Uint8Array>, options: DecodeOptions = {}): Promise<DecodedArtifact> {
  const sink = new MemorySink();
  const { digest, gzipBytes, parsed } = await decodeInto(source, sink, options);
  const files = parsed.files.map((entry, i) => ({ ...entry, content: sink.contents[i]! }));
  return { digest, gzipBytes, document: parsed.document, config: parsed.config, files, totalBytes: parsed.totalBytes };
}

/** A content sink that does I/O: the decoder awaits flush() after every decompressed chunk (backpressure). */
export interface FlushingSink extends ContentSink {
  flush(): Promise<void>;
}

/**
 * The one decoding pass, with contents going to `sink`. Memory stays bounded by a few chunks: inflation
 * stops the moment the decompressed limit is passed, the parser hands each decoded piece on at once,
 * and after a document error the rest is only counted (so size limits, which take precedence, still apply).
 */
export async function decodeInto(
  source: Buffer | AsyncIterable<Uint8Array>,
  sink: ContentSink | FlushingSink,
  options: DecodeOptions = {},
): Promise<{ digest: string; gzipBytes: number; parsed: ParsedDocument }> {
  const limits = resolveLimits(options.limits);
  const expected = options.expectedDigest?.toLowerCase();
  if (expected !== undefined && !/^[0-9a-f]{64}$/.test(expected))
    throw new SvcError('SVC_ARTIFACT_DIGEST_MISMATCH', 'The expected digest is not a hex SHA-256');
  if (Buffer.isBuffer(source)) checkInputSize(source.length, limits);

  const parser = new DocumentParser(limits, sink);
  const flush = 'flush' in sink ? () => sink.flush() : undefined;
  const hash = createHash('sha256');
  const gunzip = createGunzip({ chunkSize: 64 * 1024 });
  let stopped = false;
  let gzipBytes = 0;
  let decompressed = 0;
  let documentError: unknown;
  let sourceError: unknown;
  // A limit (or stall) of the input met after gunzip already failed must still win over that failure.
  let inputError: SvcError | undefined;

  // Reads the source, enforces input limits and hashes every byte, even after gunzip failed, so a corrupt
  // upload with a claimed digest is reported as a digest mismatch rather than as bad gzip.
  const feeding = (async () => {
    try {
      for await (const chunk of Buffer.isBuffer(source) ? [source] : source) {
        if (stopped) return;
        gzipBytes += chunk.length;
        checkInputSize(gzipBytes, limits);
        hash.update(chunk);
        if (!gunzip.destroyed && !gunzip.write(chunk)) await drainOrClose(gunzip);
      }
      if (!gunzip.destroyed) gunzip.end();
    } catch (error) {
      if (error instanceof SvcError) inputError = error;
      else sourceError = error;
      gunzip.destroy(error as Error);
    }
  })();

  let gzipError: unknown;
  try {
    for await (const out of gunzip as AsyncIterable<Buffer>) {
      decompressed += out.length;
      if (decompressed > limits.maxDecompressedBytes) {
        throw new SvcError(
          'SVC_ARTIFACT_DECOMPRESSED_TOO_LARGE',
          `The artifact decompresses to more than ${limits.maxDecompressedBytes} bytes; decompression stopped`,
        );
      }
      if (documentError !== undefined) continue;
      try {
        parser.push(out);
      } catch (error) {
        documentError = error;
        continue;
      }
      if (flush) await flush();
    }
  } catch (error) {
    if (error instanceof SvcError) throw stop(error);
    if (sourceError !== undefined) throw stop(sourceError);
    gzipError = error;
  }
  // Input is consumed to the end (bounded by the input limits) so the digest covers every byte.
  await feeding;
  stopped = true;
  if (sourceError !== undefined) throw sourceError;
  if (inputError !== undefined) throw inputError;

  const digest = hash.digest('hex');
  if (expected !== undefined && digest !== expected)
    throw new SvcError('SVC_ARTIFACT_DIGEST_MISMATCH', `The artifact digest is ${digest}, not the expected ${expected}`);
  if (gzipError !== undefined)
    throw new SvcError('SVC_ARTIFACT_MALFORMED', `The artifact is not valid gzip: ${(gzipError as Error).message}`, { cause: gzipError });
  if (documentError !== undefined) throw documentError;
  return { digest, gzipBytes, parsed: parser.finish() };

  /** Stop reading the source (not awaited, so a stalled sender cannot hold the verdict back). */
  function stop(error: unknown): unknown {
    stopped = true;
    gunzip.destroy();
    return error;
  }
}

/** Resolve on 'drain' or 'close', whichever comes first, without leaving a listener behind. */
function drainOrClose(stream: NodeJS.WritableStream & NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

function checkInputSize(bytes: number, limits: ArtifactLimits): void {
  if (bytes > limits.maxRequestBytes) throw new SvcError('SVC_ARTIFACT_REQUEST_TOO_LARGE', `The upload exceeds ${limits.maxRequestBytes} bytes`);
  if (bytes > limits.maxGzipBytes) throw new SvcError('SVC_ARTIFACT_TOO_LARGE', `The artifact exceeds ${limits.maxGzipBytes} bytes compressed`);
}

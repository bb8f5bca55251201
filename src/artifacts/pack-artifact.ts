// Pack an app directory into a deterministic svc-deploy/1 artifact (canonical JSON, gzip with fixed header).
import { createHash } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGzip } from 'node:zlib';
import { SvcError } from '../core/errors.js';
import type { DeployConfig } from './deploy-config.js';
import {
  base64Length,
  currentHeader,
  DOCUMENT_CLOSE,
  encodeFileOpen,
  encodeHeader,
  FILE_CLOSE,
  type ArtifactDocument,
  type ArtifactFileEntry,
} from './document.js';
import { normalizeGzipHeader } from './gzip-header.js';
import { resolveLimits, type ArtifactLimits } from './limits.js';
import { readDeployConfig } from './read-deploy-config.js';
import { walkIncludedPaths, type WalkedFile } from './walk-included.js';

/** Progress of packArtifact: files walked, files hashed, document bytes compressed. */
export interface PackProgress {
  phase: 'walk' | 'hash' | 'compress';
  done: number;
  total: number;
}

/** A packed artifact: its gzip bytes, their digest and the document they hold (without contents). */
export interface PackedArtifact {
  bytes: Buffer;
  /** Lowercase hex SHA-256 of `bytes`. */
  digest: string;
  document: ArtifactDocument;
  fileCount: number;
  /** Sum of the file sizes. */
  totalBytes: number;
}

/** Options of packArtifact. */
export interface PackOptions {
  /** Use this configuration instead of reading <appDir>/svc.deploy.json. */
  config?: DeployConfig;
  onProgress?: (progress: PackProgress) => void;
  limits?: Partial<ArtifactLimits>;
}

// zlib level 6 (gzip's and tar's default); the level is part of the byte-for-byte output.
const GZIP_LEVEL = 6;
const FLUSH_BYTES = 1024 * 1024;
const READ_AHEAD_BYTES = 32 * 1024 * 1024;
const READ_AHEAD_FILES = 64;

/** Pack `appDir` per its svc.deploy.json: identical inputs on the same svc and Node versions give identical bytes. */
export async function packArtifact(appDir: string, options: PackOptions = {}): Promise<PackedArtifact> {
  const limits = resolveLimits(options.limits);
  const config = options.config ?? (await readDeployConfig(appDir));
  const progress = options.onProgress;
  const walked = await walkIncludedPaths(appDir, config, limits, (count) => progress?.({ phase: 'walk', done: count, total: count }));
  const header = currentHeader(config);
  const totalBytes = walked.reduce((sum, f) => sum + f.size, 0);
  const headerText = encodeHeader(header);

  const gzip = createGzip({ level: GZIP_LEVEL, chunkSize: 64 * 1024 });
  const output: Buffer[] = [];
  let gzipBytes = 0;
  gzip.on('data', (chunk: Buffer) => {
    output.push(chunk);
    gzipBytes += chunk.length;
  });
  const finished = new Promise<void>((resolve, reject) => {
    gzip.once('end', resolve);
    gzip.once('error', reject);
  });

  let pending: string[] = [];
  let pendingBytes = 0;
  let documentBytes = 0;
  // For progress only: the base64 dominates, framing per file is small.
  const estimatedTotal = headerText.length + walked.reduce((sum, f) => sum + base64Length(f.size) + f.path.length + 140, 0);
  const write = async (text: string, force = false): Promise<void> => {
    pending.push(text);
    pendingBytes += text.length;
    if (pendingBytes < FLUSH_BYTES && !force) return;
    const chunk = Buffer.from(pending.join(''), 'utf8');
    pending = [];
    pendingBytes = 0;
    documentBytes += chunk.length;
    if (documentBytes > limits.maxDecompressedBytes)
      throw new SvcError('SVC_ARTIFACT_DECOMPRESSED_TOO_LARGE', `The artifact document would exceed ${limits.maxDecompressedBytes} bytes`);
    if (gzipBytes > limits.maxGzipBytes) throw new SvcError('SVC_ARTIFACT_TOO_LARGE', `The compressed artifact exceeds ${limits.maxGzipBytes} bytes`);
    progress?.({ phase: 'compress', done: force ? estimatedTotal : Math.min(documentBytes, estimatedTotal), total: estimatedTotal });
    if (!gzip.write(chunk)) await new Promise<void>((resolve) => gzip.once('drain', resolve));
  };

  const entries: ArtifactFileEntry[] = [];
  try {
    await write(headerText);
    const reader = readAhead(walked);
    for (let i = 0; i < walked.length; i++) {
      const file = walked[i]!;
      const content = await reader.next(i);
      const entry: ArtifactFileEntry = { path: file.path, size: content.length, mode: file.mode, sha256: createHash('sha256').update(content).digest('hex') };
      entries.push(entry);
      await write(`${i === 0 ? '' : ','}${encodeFileOpen(entry)}`);
      await write(content.toString('base64'));
      await write(FILE_CLOSE);
      progress?.({ phase: 'hash', done: i + 1, total: walked.length });
    }
    await write(DOCUMENT_CLOSE, true);
    gzip.end();
    await finished;
  } catch (error) {
    gzip.destroy();
    throw error;
  }
  const bytes = normalizeGzipHeader(Buffer.concat(output));
  if (bytes.length > limits.maxGzipBytes)
    throw new SvcError('SVC_ARTIFACT_TOO_LARGE', `The compressed artifact is ${bytes.length} bytes; the limit is ${limits.maxGzipBytes}`);
  const digest = createHash('sha256').update(bytes).digest('hex');
  return { bytes, digest, document: { ...header, files: entries }, fileCount: entries.length, totalBytes };
}

/** Reads files ahead of the encoder (bounded in files and bytes) and hands them out in order. */
function readAhead(files: WalkedFile[]): { next(index: number): Promise<Buffer> } {
  const inflight = new Map<number, Promise<Buffer>>();
  let started = 0;
  let bytesAhead = 0;
  const fill = (from: number): void => {
    while (started < files.length && inflight.size < READ_AHEAD_FILES && (bytesAhead < READ_AHEAD_BYTES || started === from)) {
      const index = started++;
      const file = files[index]!;
      bytesAhead += file.size;
      const promise = readRegularFile(file);
      promise.catch(() => undefined); // surfaced when awaited in order
      inflight.set(index, promise);
    }
  };
  return {
    async next(index) {
      fill(index);
      const promise = inflight.get(index)!;
      inflight.delete(index);
      const content = await promise;
      bytesAhead -= files[index]!.size;
      fill(index + 1);
      return content;
    },
  };
}

/** Read a walked file without following a symlink swapped in after the walk, and check it did not change size. */
async function readRegularFile(file: WalkedFile): Promise<Buffer> {
  let handle;
  try {
    handle = await open(file.absolute, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new SvcError('SVC_ARTIFACT_SYMLINK', `${file.path} became a symbolic link while packing`);
    throw new SvcError('SVC_IO', `Could not read ${file.path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new SvcError('SVC_ARTIFACT_SPECIAL_FILE', `${file.path} is not a regular file`);
    const content = await handle.readFile();
    if (content.length !== file.size) throw new SvcError('SVC_IO', `${file.path} changed while packing; run the build to completion, then pack again`);
    return content;
  } finally {
    await handle.close();
  }
}

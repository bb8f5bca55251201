// A file a job task uploads, put where the driver said: streamed into a temp sibling with a size
// bound, fsynced, renamed into place, directory fsynced. Readers see the old file or the whole new one.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fsyncDirectory } from '../../src/core/atomic-write.js';
import { ioFailure } from '../../src/core/disk-full.js';
import { SvcError } from '../../src/core/errors.js';
import { handleWriter } from './handle-writer.js';

export interface ReceivedFile {
  sizeBytes: number;
  /** Lowercase hex SHA-256 of the bytes written. */
  sha256: string;
}

/** Count and hash bytes as they pass; past `maxBytes` the stream fails with SVC_PAYLOAD_TOO_LARGE. */
function meter(maxBytes: number, hash: ReturnType<typeof createHash>): Transform & { size: number } {
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      counter.size += chunk.length;
      if (counter.size > maxBytes) return done(new SvcError('SVC_PAYLOAD_TOO_LARGE', `The upload exceeds ${maxBytes} bytes`));
      hash.update(chunk);
      done(null, chunk);
    },
  }) as Transform & { size: number };
  counter.size = 0;
  return counter;
}

/** Write `source` to `path` atomically (mode 0600); nothing changes at `path` unless every byte arrived. */
export async function receiveUpload(source: Readable, path: string, options: { maxBytes: number }): Promise<ReceivedFile> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.upload`);
  const hash = createHash('sha256');
  const counter = meter(options.maxBytes, hash);
  try {
    await mkdir(dir, { recursive: true });
    const handle = await open(temp, 'wx', 0o600);
    try {
      await pipeline(source, counter, handleWriter(handle));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
    await fsyncDirectory(dir);
    return { sizeBytes: counter.size, sha256: hash.digest('hex') };
  } catch (error) {
    await rm(temp, { force: true });
    if (error instanceof SvcError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE' || (error as NodeJS.ErrnoException).code === 'ECONNRESET') {
      throw new SvcError('SVC_BAD_REQUEST', 'The upload ended before its last byte');
    }
    throw ioFailure(error, `writing ${path}`);
  }
}

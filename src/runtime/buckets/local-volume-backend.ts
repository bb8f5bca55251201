// Local volume backend: staging files under <root>/staging, objects under <root>/objects. Chunks are
// streamed straight into the staging file and made durable by one fsync at chunk end; commit is a rename.
import { createReadStream, mkdirSync } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { RuntimeError } from '../errors.js';
import type { StagingEntry, StorageBackend, StoredStat } from './storage-backend.js';

const SAFE_KEY = /^[a-z0-9_-]+(?:\/[a-z0-9_-]+)*$/;
const SAFE_ID = /^[a-z0-9_-]{8,80}$/;

/** Options of the local volume. */
export interface LocalVolumeOptions {
  /** Directory holding `objects/` and `staging/` (created 0700). */
  root: string;
}

/** Create the local volume backend rooted at a directory. */
export function createLocalVolumeBackend(options: LocalVolumeOptions): StorageBackend {
  const objects = join(options.root, 'objects');
  const staging = join(options.root, 'staging');
  mkdirSync(objects, { recursive: true, mode: 0o700 });
  mkdirSync(staging, { recursive: true, mode: 0o700 });

  const objectPath = (storageKey: string): string => {
    if (!SAFE_KEY.test(storageKey)) throw new RuntimeError('SVC_BUCKET_STORAGE', `Refusing unsafe storage key "${storageKey}".`);
    return join(objects, storageKey);
  };
  const stagingPath = (state: string): string => {
    const id = (JSON.parse(state) as { id?: unknown }).id;
    if (typeof id !== 'string' || !SAFE_ID.test(id)) throw new RuntimeError('SVC_BUCKET_STORAGE', 'Corrupt local staging state.');
    return join(staging, id);
  };

  return {
    kind: 'local',
    minChunkBytes: 1,

    async createStaging(reservationId) {
      if (!SAFE_ID.test(reservationId)) throw new RuntimeError('SVC_BUCKET_STORAGE', 'Unsafe reservation id.');
      const state = JSON.stringify({ id: reservationId });
      const handle = await open(stagingPath(state), 'wx', 0o600);
      await handle.close();
      return { id: reservationId, state };
    },

    async writeChunk(state, offset, chunk) {
      const path = stagingPath(state);
      const handle = await open(path, 'r+');
      try {
        // Bytes past the durable offset (from a cut chunk or a crash) are never kept.
        if ((await handle.stat()).size !== offset) await handle.truncate(offset);
        await writeDurably(handle, chunk, offset);
        return state;
      } catch (error) {
        await handle.truncate(offset).catch(() => undefined);
        throw error;
      } finally {
        await handle.close();
      }
    },

    readStaging(state, length) {
      if (length === 0) return Readable.from([]);
      return createReadStream(stagingPath(state), { start: 0, end: length - 1, highWaterMark: 1024 * 1024 });
    },

    async commit(state, storageKey) {
      const target = objectPath(storageKey);
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      await rename(stagingPath(state), target);
      await syncDirectory(dirname(target));
      return statOf(target);
    },

    async abortStaging(state) {
      await unlink(stagingPath(state)).catch(ignoreMissing);
    },

    async stat(storageKey) {
      try {
        return await statOf(objectPath(storageKey));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },

    async read(storageKey, range) {
      let handle;
      try {
        handle = await open(objectPath(storageKey), 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
      if (range !== undefined && range.end < range.start) {
        await handle.close();
        return Readable.from([]);
      }
      return handle.createReadStream({ ...(range ?? {}), highWaterMark: 1024 * 1024 });
    },

    async delete(storageKey) {
      await unlink(objectPath(storageKey)).catch(ignoreMissing);
    },

    async listStaging() {
      const entries: StagingEntry[] = [];
      for (const name of await readdir(staging)) {
        if (!SAFE_ID.test(name)) continue;
        const info = await stat(join(staging, name)).catch(() => null);
        if (info !== null) entries.push({ id: name, state: JSON.stringify({ id: name }), createdAt: info.mtimeMs });
      }
      return entries;
    },

    async close() {},
  };
}

const WRITE_BUFFER = 1024 * 1024;
/** Start background write-back (fdatasync off the event loop) after this many bytes, so the chunk's final fsync is short. */
const FLUSH_EVERY = 1024 * 1024;

/**
 * Stream a chunk into the file at `position` in 1 MiB positional writes, overlapping receipt with write-back
 * (at most one background fdatasync in flight), then fdatasync once: the chunk is durable before the offset moves.
 */
async function writeDurably(handle: FileHandle, chunk: AsyncIterable<Uint8Array>, position: number): Promise<void> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let sinceFlush = 0;
  let flushing: Promise<void> | null = null;
  const write = async (): Promise<void> => {
    const buffers = pending;
    const size = pendingBytes;
    pending = [];
    pendingBytes = 0;
    // writev: no copy into one buffer; a short write (rare) falls back to writing the rest.
    let done = (await handle.writev(buffers, position)).bytesWritten;
    if (done < size) {
      const rest = Buffer.concat(buffers, size).subarray(done);
      for (let at = 0; at < rest.length; at += (await handle.write(rest, at, rest.length - at, position + done + at)).bytesWritten);
      done = size;
    }
    position += size;
    sinceFlush += size;
    if (sinceFlush >= FLUSH_EVERY && flushing === null) {
      sinceFlush = 0;
      const settle = (): void => {
        flushing = null;
      };
      flushing = handle.datasync().then(settle, settle);
    }
  };
  try {
    for await (const piece of chunk) {
      pending.push(piece);
      pendingBytes += piece.byteLength;
      if (pendingBytes >= WRITE_BUFFER) await write();
    }
    if (pendingBytes > 0) await write();
  } finally {
    if (flushing !== null) await flushing;
  }
  await handle.datasync();
}

async function statOf(path: string): Promise<StoredStat> {
  const info = await stat(path, { bigint: true });
  // ctime cannot be set from user space: any rewrite of the bytes changes the version.
  return { size: Number(info.size), version: `${info.ino}:${info.mtimeNs}:${info.ctimeNs}` };
}

async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}

import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ioFailure } from './disk-full.js';

export interface AtomicWriteOptions {
  /** File mode of the written file (default 0o644; use 0o600 for anything private). */
  mode?: number;
  /** Create missing parent directories first. */
  mkdirs?: boolean;
}

/**
 * Durably replace `path` with `data`: write a temp file beside it, fsync, rename, fsync the directory.
 * Readers see either the old or the new file, never a partial one.
 */
export async function atomicWriteFile(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    if (options.mkdirs) await mkdir(dir, { recursive: true });
    const handle = await open(temp, 'wx', options.mode ?? 0o644);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
    await fsyncDirectory(dir);
  } catch (error) {
    await rm(temp, { force: true });
    throw ioError(error, path);
  }
}

/** Synchronous variant of atomicWriteFile for start-up and shutdown paths. */
export function atomicWriteFileSync(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(temp, 'wx', options.mode ?? 0o644);
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
    const dirFd = openSync(dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } catch (error) {
    rmSync(temp, { force: true });
    throw ioError(error, path);
  }
}

/** fsync a directory so a rename inside it survives a crash. */
export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function ioError(error: unknown, path: string) {
  return ioFailure(error, `writing ${path}`);
}

// Consistent project-database snapshots (step 6 of the release transaction) and their restore.
// On-disk format: a snapshot is a plain SQLite database file, or an empty (0-byte) file meaning
// "there was no database yet" — restoring that removes the database.
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { atomicWriteFile, fsyncDirectory } from '../../src/core/atomic-write.js';
import { SvcError, isSvcError } from '../../src/core/errors.js';
import { isDiskFull } from '../../src/core/disk-full.js';
import { runWorkerJob, siblingModule } from '../../src/core/module-worker.js';
import type { BackupJob } from './backup-worker.js';

/** A snapshot on disk with its exact size (recorded on the release). */
export interface Snapshot {
  path: string;
  sizeBytes: number;
  /** False when the project had no database yet (the snapshot file is empty). */
  hadDatabase: boolean;
}

/** Files SQLite keeps beside a database; stale ones must never meet a replaced database file. */
export const sidecarSuffixes = ['-wal', '-shm', '-journal'] as const;

/**
 * Back up `databasePath` into `snapshotPath` with SQLite's online backup API (consistent even while
 * other connections read or write, WAL content included): temp file, fsync, rename, fsync directory.
 * The backup runs in a worker thread: on the event loop it held it for up to a third of a second on a
 * few hundred MiB.
 */
export async function createSnapshot(databasePath: string, snapshotPath: string): Promise<Snapshot> {
  await mkdir(dirname(snapshotPath), { recursive: true });
  if (!(await exists(databasePath))) {
    await atomicWriteFile(snapshotPath, new Uint8Array(0), { mode: 0o600 });
    return { path: snapshotPath, sizeBytes: 0, hadDatabase: false };
  }
  const temp = join(dirname(snapshotPath), `.${basename(snapshotPath)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await runWorkerJob<null>(siblingModule(import.meta.url, 'backup-worker'), { source: databasePath, destination: temp } satisfies BackupJob, 'snapshot');
    await fsyncFile(temp);
    await rename(temp, snapshotPath);
    await fsyncDirectory(dirname(snapshotPath));
    const { size } = await stat(snapshotPath);
    return { path: snapshotPath, sizeBytes: size, hadDatabase: true };
  } catch (error) {
    await rm(temp, { force: true });
    if (isSvcError(error)) throw error;
    if (isDiskFull(error)) throw new SvcError('SVC_DISK_FULL', `No space left for the snapshot of ${databasePath}`, { cause: error });
    throw new SvcError('SVC_SNAPSHOT_FAILED', `Backup of ${databasePath} failed: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Put a snapshot back as the project database. Every connection to the database must be closed
 * first (the app is stopped). Stale -wal/-shm/-journal files are removed before the new file is
 * renamed in, so an old write-ahead log is never replayed onto the restored database.
 * The snapshot itself is kept (a retry can restore it again).
 */
export async function restoreSnapshot(snapshotPath: string, databasePath: string): Promise<void> {
  let size: number;
  try {
    size = (await stat(snapshotPath)).size;
  } catch {
    throw new SvcError('SVC_SNAPSHOT_MISSING', `Snapshot ${snapshotPath} does not exist`);
  }
  const dir = dirname(databasePath);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${basename(databasePath)}.${randomBytes(6).toString('hex')}.restore`);
  try {
    if (size > 0) {
      await copyFile(snapshotPath, temp);
      await fsyncFile(temp);
    }
    for (const suffix of sidecarSuffixes) await rm(databasePath + suffix, { force: true });
    if (size > 0) await rename(temp, databasePath);
    else await rm(databasePath, { force: true });
    await fsyncDirectory(dir);
  } catch (error) {
    await rm(temp, { force: true });
    throw new SvcError('SVC_IO', `Restoring ${databasePath} from ${snapshotPath} failed: ${(error as Error).message}`, { cause: error });
  }
}

/** Bytes the database occupies on disk with its write-ahead log and shared-memory file (0 if none). */
export async function databaseFootprint(databasePath: string): Promise<number> {
  let total = 0;
  for (const path of [databasePath, `${databasePath}-wal`, `${databasePath}-shm`]) {
    total += await stat(path).then(
      (s) => s.size,
      () => 0,
    );
  }
  return total;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function fsyncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

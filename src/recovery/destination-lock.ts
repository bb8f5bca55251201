// "Stopped destination" check for restore: an existing database file must not be open anywhere. We take
// SQLite's own exclusive lock (locking_mode=EXCLUSIVE + BEGIN EXCLUSIVE, no busy wait), which fails while
// any connection, in any process, has the file open in WAL mode or holds a lock on it. The check leaves
// the file byte-for-byte as it was.
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { SvcError } from '../core/errors.js';

/** A held destination lock. */
export interface DestinationLock {
  /** Release the lock; afterwards no -wal/-shm may exist, or someone opened the file meanwhile. */
  release(): void;
}

/** Lock `targetPath` for replacement; throws SVC_RECOVERY_DESTINATION_BUSY when it is in use. */
export function lockDestination(targetPath: string): DestinationLock {
  const busy = (why: string, cause?: unknown): SvcError =>
    new SvcError('SVC_RECOVERY_DESTINATION_BUSY', `${targetPath} is in use (${why}); restore only into a stopped database.`, {
      details: { targetPath },
      ...(cause ? { cause } : {}),
    });
  if (!existsSync(targetPath)) {
    if (existsSync(`${targetPath}-wal`) || existsSync(`${targetPath}-shm`)) throw busy('a -wal or -shm file exists without the database');
    return { release: () => undefined };
  }
  let db: Database.Database;
  try {
    db = new Database(targetPath, { fileMustExist: true, timeout: 0 });
  } catch (error) {
    throw busy('cannot open it', error);
  }
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_NOTADB') {
      throw new SvcError('SVC_RECOVERY_OPTIONS_INVALID', `${targetPath} exists and is not a SQLite database; refusing to replace it.`, {
        details: { targetPath },
      });
    }
    throw busy('another connection holds it', error);
  }
  return {
    release() {
      if (!db.open) return;
      // ROLLBACK, not COMMIT: committing even an empty transaction writes the header page of an empty
      // file (a 0-byte destination would become a 4 KiB database); the check must never change it.
      db.exec('ROLLBACK');
      db.close();
    },
  };
}

import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** The control database handle (better-sqlite3). */
export type ControlDb = Database.Database;

/**
 * Open (creating if needed) the control database: private file mode 0600 inside a 0700
 * directory, WAL journal, synchronous=FULL (a committed transaction survives power loss),
 * foreign keys on, and a busy timeout so a concurrent reader never fails immediately.
 */
export function openControlDb(path: string): ControlDb {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // Create the file ourselves so it never exists with a umask-derived mode; SQLite gives -wal/-shm the same mode.
  closeSync(openSync(path, 'a', 0o600));
  chmodSync(path, 0o600);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}

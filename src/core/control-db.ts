import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { isDiskFull } from './disk-full.js';

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
  let db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
  } catch (error) {
    if (!isDiskFull(error)) throw error;
    // A full disk: the WAL index (-shm, 32 KiB) cannot be created. In exclusive locking mode SQLite
    // keeps that index in memory instead, so the control plane still starts and serves reads (its
    // writes fail with SVC_DISK_FULL until space is freed). Only this process may open the database
    // meanwhile; a restart after freeing space returns to normal shared mode.
    db.close();
    db = new Database(path);
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    process.emitWarning(`No space left for ${path}-shm: the control database is open in exclusive mode; free disk space and restart svc.`, {
      code: 'SVC_DISK_FULL',
    });
  }
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}

/** Most distinct SQL texts kept per database (dynamic `IN (?, ?, …)` lists make the set open-ended). */
const STATEMENT_CACHE_LIMIT = 500;
const statementCaches = new WeakMap<ControlDb, Map<string, Database.Statement>>();

/**
 * `db.prepare(sql)`, compiled once per database and SQL text: re-preparing dominated the cost of
 * hot read paths. With `{ raw: true }` rows come back as arrays in column order (a separate cached
 * statement; much cheaper than building a keyed object per row on the hottest reads).
 * Use it for plain run/get/all/iterate only: never call raw/pluck/expand/safeIntegers/bind on the
 * result (that would change the statement for every other caller); use `db.prepare` there.
 */
export function cachedStatement(db: ControlDb, sql: string, options?: { raw: true }): Database.Statement {
  let cache = statementCaches.get(db);
  if (cache === undefined) {
    cache = new Map();
    statementCaches.set(db, cache);
  }
  const key = options?.raw ? `raw\0${sql}` : sql;
  const hit = cache.get(key);
  // A statement still being iterated cannot run again; give that (rare) caller a private one.
  if (hit !== undefined && !hit.busy) return hit;
  const statement = db.prepare(sql);
  if (options?.raw) statement.raw(true);
  if (hit !== undefined) return statement;
  if (cache.size >= STATEMENT_CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, statement);
  return statement;
}

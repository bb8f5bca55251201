// A raw better-sqlite3 connection dressed as the runtime database seam (sqlite + onBeforeCommit), for unit
// tests of capture and encoding. Integration and property tests use the real runtime instead.
import Database from 'better-sqlite3';
import type { RecoveryDatabase } from '../../../src/recovery/recovery-options.js';

/** A raw host: `write(fn)` runs fn in BEGIN IMMEDIATE, then the hooks, then COMMIT (a throw rolls back). */
export interface RawHost extends RecoveryDatabase {
  write<T>(fn: (db: Database.Database) => T): T;
  close(): void;
}

/** Open a file database in WAL + synchronous FULL, like the runtime's file defaults. */
export function openRawHost(path: string): RawHost {
  const sqlite = new Database(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  const hooks = new Set<(tx: Database.Database, info: unknown) => void>();
  return {
    sqlite,
    onBeforeCommit(hook) {
      hooks.add(hook);
      return () => hooks.delete(hook);
    },
    write(fn) {
      return sqlite
        .transaction(() => {
          const value = fn(sqlite);
          for (const hook of hooks) hook(sqlite, {});
          return value;
        })
        .immediate();
    },
    close() {
      if (sqlite.open) sqlite.close();
    },
  };
}

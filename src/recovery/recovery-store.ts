// Recovery's metadata inside the app database: one state row fixed at epoch start and the journal
// table whose rows are written in the app's own transaction (the newest row is the current seal).
import type BetterSqlite3 from 'better-sqlite3';
import { RECOVERY_PREFIX } from './managed-tables.js';

/** Table holding the epoch's fixed facts. */
export const STATE_TABLE = `${RECOVERY_PREFIX}state`;
/** Table holding journal entries not yet pruned (always at least the newest). */
export const JOURNAL_TABLE = `${RECOVERY_PREFIX}journal`;

/** Statements creating the metadata tables. */
export const STORE_STATEMENTS = [
  `CREATE TABLE IF NOT EXISTS main.${STATE_TABLE} (id INTEGER PRIMARY KEY CHECK (id = 1), format TEXT NOT NULL, epoch_id TEXT NOT NULL, created_at INTEGER NOT NULL, key_check TEXT NOT NULL, schema_hash TEXT NOT NULL, base_acc TEXT NOT NULL, base_seal TEXT NOT NULL, genesis TEXT NOT NULL) STRICT`,
  `CREATE TABLE IF NOT EXISTS main.${JOURNAL_TABLE} (sequence INTEGER PRIMARY KEY, time INTEGER NOT NULL, digest TEXT NOT NULL, acc TEXT NOT NULL, seal TEXT NOT NULL, line TEXT NOT NULL) STRICT`,
];

/** The state row. */
export interface EpochState {
  readonly format: string;
  readonly epoch_id: string;
  readonly created_at: number;
  readonly key_check: string;
  readonly schema_hash: string;
  readonly base_acc: string;
  readonly base_seal: string;
  readonly genesis: string;
}

/** A journal row. */
export interface JournalRow {
  readonly sequence: number;
  readonly time: number;
  readonly digest: string;
  readonly acc: string;
  readonly seal: string;
  readonly line: string;
}

/** The state row, or null when the database carries no recovery metadata. */
export function readEpochState(db: BetterSqlite3.Database): EpochState | null {
  const exists = db.prepare(`SELECT 1 FROM main.sqlite_schema WHERE type = 'table' AND name = ?`).get(STATE_TABLE);
  if (exists === undefined) return null;
  return (
    db
      .prepare<[], EpochState>(
        `SELECT format, epoch_id, created_at, key_check, schema_hash, base_acc, base_seal, genesis FROM main.${STATE_TABLE} WHERE id = 1`,
      )
      .get() ?? null
  );
}

/** Insert the state row of a new epoch (inside the caller's transaction). */
export function insertEpochState(db: BetterSqlite3.Database, state: EpochState): void {
  db.prepare(
    `INSERT INTO main.${STATE_TABLE} (id, format, epoch_id, created_at, key_check, schema_hash, base_acc, base_seal, genesis) VALUES (1, @format, @epoch_id, @created_at, @key_check, @schema_hash, @base_acc, @base_seal, @genesis)`,
  ).run(state);
}

/** The newest journal row, or undefined before the first commit of the epoch. */
export function readNewestJournalRow(db: BetterSqlite3.Database): JournalRow | undefined {
  return db.prepare<[], JournalRow>(`SELECT sequence, time, digest, acc, seal, line FROM main.${JOURNAL_TABLE} ORDER BY sequence DESC LIMIT 1`).get();
}

// Which epoch a project database belongs to, read from the database itself (read-only, no writes, so
// a running app's recovery is never fenced). The database is the source of truth: after a rollback
// with data or a restore, the epoch to continue is the one whose metadata the file carries.
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { readEpochState, readNewestJournalRow } from '../recovery-store.js';

/** The recovery facts of a database file, or null when it carries no recovery metadata (or does not exist). */
export interface DatabaseEpoch {
  epochId: string;
  /** Newest committed sequence (0 before the first commit of the epoch). */
  committedThrough: number;
  /** Commit time of that sequence (the base time for 0). */
  newestCommitAt: number;
}

/** Read the epoch of a database file without writing to it. */
export function readDatabaseEpoch(databasePath: string): DatabaseEpoch | null {
  if (!existsSync(databasePath)) return null;
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    const state = readEpochState(db);
    if (state === null) return null;
    const newest = readNewestJournalRow(db);
    return { epochId: state.epoch_id, committedThrough: newest?.sequence ?? 0, newestCommitAt: newest?.time ?? state.created_at };
  } finally {
    db.close();
  }
}

// What makes two journaled databases the same for an epoch rotation: the schema hash and the full-state
// accumulator of every managed table. Reads the whole database (synchronously): the control plane calls
// it through databaseFingerprintOffThread.
import Database from 'better-sqlite3';
import { inspectManagedTables, schemaHash } from './managed-tables.js';
import { scanState } from './state-index.js';

/** `<schema hash>:<state accumulator>` of the database at `path` (opened read-only). */
export function databaseFingerprint(path: string): string {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return `${schemaHash(db)}:${scanState(db, inspectManagedTables(db), Number.MAX_SAFE_INTEGER).accumulator.toString(16)}`;
  } finally {
    db.close();
  }
}

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { systemClock, type Clock } from '../../src/core/clock.js';
import { SvcError, isSvcError } from '../../src/core/errors.js';
import { readMigrationFiles, type MigrationFile } from './migration-files.js';
import { planMigrations, type AppliedMigration } from './migration-history.js';
import { checkMigrationSafety, type UnsafeFinding, type UnsafeMigrationPolicy } from './migration-safety.js';

/** The applied-history table inside each project database. */
export const HISTORY_TABLE = '_svc_migrations';

const createHistory = `CREATE TABLE IF NOT EXISTS ${HISTORY_TABLE} (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  checksum TEXT NOT NULL,
  applied_at INTEGER NOT NULL
)`;

export interface MigrateOptions extends UnsafeMigrationPolicy {
  /** The project database file (created if missing, with its directory). */
  databasePath: string;
  /** The release's migrations directory (`database.migrations`); missing means none. */
  migrationsDir: string;
  clock?: Clock;
  /** How long to wait for another writer before failing (default 5000 ms). */
  busyTimeoutMs?: number;
}

export interface MigrateResult {
  /** File names applied by this call, in order. */
  applied: string[];
  /** Unsafe statements that both switches allowed (for the audit log). */
  allowedUnsafe: { file: string; findings: UnsafeFinding[] }[];
}

/** Read the applied history (empty when the table does not exist yet). */
export function readAppliedHistory(db: Database.Database): AppliedMigration[] {
  const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(HISTORY_TABLE);
  if (!exists) return [];
  return db.prepare(`SELECT version, name, checksum, applied_at AS appliedAt FROM ${HISTORY_TABLE} ORDER BY version`).all() as AppliedMigration[];
}

/**
 * Verify history and apply every pending migration of a release, all in ONE `BEGIN IMMEDIATE`
 * transaction together with their history rows: either all pending migrations are applied or none.
 * Throws SVC_MIGRATION_HISTORY_EDITED / _MISSING / _OUT_OF_ORDER / _UNSAFE before changing anything,
 * and SVC_MIGRATION_FAILED (naming the file) when SQLite rejects a statement.
 */
export async function migrateDatabase(options: MigrateOptions): Promise<MigrateResult> {
  const files = await readMigrationFiles(options.migrationsDir);
  mkdirSync(dirname(options.databasePath), { recursive: true });
  const db = new Database(options.databasePath);
  try {
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    return applyMigrations(db, files, options, options.clock ?? systemClock);
  } finally {
    db.close();
  }
}

/** Apply pending `files` to an open database inside one immediate transaction (see migrateDatabase). */
export function applyMigrations(
  db: Database.Database,
  files: readonly MigrationFile[],
  policy: UnsafeMigrationPolicy,
  clock: Clock = systemClock,
): MigrateResult {
  let current: MigrationFile | null = null;
  try {
    db.exec('BEGIN IMMEDIATE');
    db.exec(createHistory);
    const pending = planMigrations(files, readAppliedHistory(db));
    const allowedUnsafe = checkMigrationSafety(pending, policy);
    const record = db.prepare(`INSERT INTO ${HISTORY_TABLE} (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)`);
    for (const file of pending) {
      current = file;
      db.exec(file.sql);
      // An allowed unsafe COMMIT/ROLLBACK would end our transaction: refuse to continue outside it.
      if (!db.inTransaction) throw new Error('the migration ended the surrounding transaction');
      record.run(file.version, file.name, file.checksum, clock.now());
    }
    db.exec('COMMIT');
    return { applied: pending.map((f) => f.name), allowedUnsafe };
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    if (isSvcError(error)) throw error;
    // Before any file ran, the failure is the transaction itself (e.g. another writer kept the database busy).
    const file = current?.name ?? HISTORY_TABLE;
    throw new SvcError('SVC_MIGRATION_FAILED', `Migration ${file} failed: ${(error as Error).message}; no pending migration was applied`, {
      cause: error,
      details: { file, sqliteCode: (error as { code?: string }).code ?? null },
    });
  }
}

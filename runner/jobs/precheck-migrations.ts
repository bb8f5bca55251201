// The read-only migration check both deploy paths run before the writer stops (the control plane's
// release transaction and the runner's local provider), so an edited or unsafe history costs no outage.
import Database from 'better-sqlite3';
import { isSvcError } from '../../src/core/errors.js';
import { readAppliedHistory } from './apply-migrations.js';
import { readMigrationFiles } from './migration-files.js';
import { planMigrations } from './migration-history.js';
import { checkMigrationSafety, type UnsafeMigrationPolicy } from './migration-safety.js';

/** Where a release's migrations and the project database are. */
export interface MigrationTarget extends UnsafeMigrationPolicy {
  databasePath: string;
  migrationsDir: string;
}

/** Check history and safety without writing; returns how many migrations are pending. */
export async function precheckMigrations(target: MigrationTarget): Promise<number> {
  const files = await readMigrationFiles(target.migrationsDir);
  let applied: ReturnType<typeof readAppliedHistory> = [];
  try {
    const db = new Database(target.databasePath, { readonly: true, fileMustExist: true });
    try {
      applied = readAppliedHistory(db);
    } finally {
      db.close();
    }
  } catch (error) {
    if (isSvcError(error)) throw error;
    // No database yet: every migration is pending.
  }
  const pending = planMigrations(files, applied);
  checkMigrationSafety(pending, { allowUnsafeMigrations: target.allowUnsafeMigrations, operatorAllowsUnsafe: target.operatorAllowsUnsafe });
  return pending.length;
}

// One ReleaseJob run where its paths are: the local driver runs it beside the control plane, a swarm
// task runs it inside the task. Both dispatch here, so a job means the same wherever it runs.
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { ReleaseJob, ReleaseJobResults } from '../release-driver.js';
import { readAppliedHistory, type MigrateOptions, type MigrateResult } from './apply-migrations.js';
import { unappliedMigrations } from './choose-cutover.js';
import { migrateOffThread } from './migrate-off-thread.js';
import { readMigrationFiles } from './migration-files.js';
import type { AppliedMigration } from './migration-history.js';
import { precheckMigrations } from './precheck-migrations.js';
import { createSnapshot, databaseFootprint, restoreSnapshot } from './snapshot.js';

export interface RunReleaseJobOptions {
  /**
   * How migrations are applied. Default: in a child process (migrateOffThread), so a long migration
   * never blocks the control plane; a process that is nothing but the job may apply them in-process.
   */
  migrate?: (options: MigrateOptions) => Promise<MigrateResult>;
}

/** Run one job (the slow ones in a worker thread or child process) and answer its result. */
export async function runReleaseJob<J extends ReleaseJob>(job: J, options: RunReleaseJobOptions = {}): Promise<ReleaseJobResults[J['type']]> {
  return (await dispatch(job, options.migrate ?? migrateOffThread)) as ReleaseJobResults[J['type']];
}

async function dispatch(job: ReleaseJob, migrate: (options: MigrateOptions) => Promise<MigrateResult>): Promise<ReleaseJobResults[ReleaseJob['type']]> {
  switch (job.type) {
    case 'precheck':
      return precheckMigrations(job.target);
    case 'migrate':
      return [...(await migrate({ ...job.target, clock: { now: () => job.now } })).applied];
    case 'snapshot':
      return createSnapshot(job.databasePath, job.snapshotPath);
    case 'restore-snapshot':
      await restoreSnapshot(job.snapshotPath, job.databasePath);
      return undefined;
    case 'unapplied-migrations':
      return unappliedMigrations(await readMigrationFiles(job.migrationsDir), readHistory(job.databasePath));
    case 'database-footprint':
      return databaseFootprint(job.databasePath);
  }
}

/** The applied migrations of the project database, read-only (none when it does not exist yet). */
function readHistory(databasePath: string): AppliedMigration[] {
  if (!existsSync(databasePath)) return [];
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    return readAppliedHistory(db);
  } finally {
    db.close();
  }
}

// Database safety of a provider deploy, as in the control plane's release transaction: a read-only
// migration pre-check before the writer stops, a snapshot, pending migrations in one transaction, and a
// durable "deploy in flight" record so a crash before the pointer switch is undone on restart.
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { atomicWriteFileSync } from '../../src/core/atomic-write.js';
import { migrateDatabase, readAppliedHistory, type MigrateResult } from '../jobs/apply-migrations.js';
import { unappliedMigrations } from '../jobs/choose-cutover.js';
import { readMigrationFiles } from '../jobs/migration-files.js';
import type { MigrationTarget } from '../jobs/precheck-migrations.js';
import { createSnapshot, restoreSnapshot, type Snapshot } from '../jobs/snapshot.js';
import { removeFileDurably } from '../supervision/fence-file.js';

/** A deploy that changed (or may have changed) the database and has not switched the pointer yet. */
export const pendingDeploySchema = z.object({
  candidateReleaseId: z.string(),
  snapshotPath: z.string(),
  databasePath: z.string(),
  at: z.number(),
});
export type PendingDeploy = z.infer<typeof pendingDeploySchema>;

/** Pure: with the pointer naming the candidate the switch happened (forget the record); otherwise undo the database. */
export function decidePendingDeploy(activeReleaseId: string | null, pending: PendingDeploy | null): 'none' | 'forget' | 'restore' {
  if (!pending) return 'none';
  return activeReleaseId === pending.candidateReleaseId ? 'forget' : 'restore';
}

/** Path of the record inside a project directory. */
export function pendingDeployPath(projectDir: string): string {
  return join(projectDir, 'deploy-in-flight.json');
}

/** Read the record (null when none; an unreadable record is an error, never ignored). */
export function readPendingDeploy(projectDir: string): PendingDeploy | null {
  let text: string;
  try {
    text = readFileSync(pendingDeployPath(projectDir), 'utf8');
  } catch {
    return null;
  }
  return pendingDeploySchema.parse(JSON.parse(text));
}

/** Durably write the record. */
export function writePendingDeploy(projectDir: string, pending: PendingDeploy): void {
  atomicWriteFileSync(pendingDeployPath(projectDir), JSON.stringify(pending), { mode: 0o600 });
}

/** Durably remove the record. */
export async function clearPendingDeploy(projectDir: string): Promise<void> {
  await removeFileDurably(pendingDeployPath(projectDir));
}

/** Settle a leftover record: restore the snapshot when the candidate never became active. No writer may run. */
export async function settlePendingDeploy(projectDir: string, activeReleaseId: string | null): Promise<'none' | 'forget' | 'restore'> {
  const pending = readPendingDeploy(projectDir);
  const decision = decidePendingDeploy(activeReleaseId, pending);
  if (decision === 'restore') await restoreSnapshot(pending!.snapshotPath, pending!.databasePath);
  if (decision !== 'none') await clearPendingDeploy(projectDir);
  return decision;
}

export { precheckMigrations, type MigrationTarget } from '../jobs/precheck-migrations.js';

/** Where the snapshot taken before deploying `releaseId` lives (a restore-data rollback of its successor puts it back). */
export function snapshotPathOf(projectDir: string, releaseId: string): string {
  return join(projectDir, 'snapshots', `${releaseId}.db`);
}

/** Whether the snapshot taken before deploying `releaseId` exists. */
export function hasSnapshotOf(projectDir: string, releaseId: string): boolean {
  return existsSync(snapshotPathOf(projectDir, releaseId));
}

/**
 * A rollback target's migrations the database does not hold as they are (read-only). Newer migrations
 * in the database are expected: the target is older, and its code ran against their predecessor.
 */
export async function unappliedForRollback(target: MigrationTarget): Promise<number> {
  const files = await readMigrationFiles(target.migrationsDir);
  if (!existsSync(target.databasePath)) return files.length;
  const db = new Database(target.databasePath, { readonly: true, fileMustExist: true });
  try {
    return unappliedMigrations(files, readAppliedHistory(db));
  } finally {
    db.close();
  }
}

/**
 * A restore-data rollback (no writer running): keep a safety copy of the current data, record the
 * rollback as in flight (a crash before the switch puts the safety copy back), then put back the
 * snapshot taken before `snapshotOf` (the active release) was deployed. Returns the safety copy.
 */
export async function restoreForRollback(projectDir: string, targetReleaseId: string, snapshotOf: string, databasePath: string, now: number): Promise<string> {
  const safety = await createSnapshot(databasePath, join(projectDir, 'snapshots', `before-rollback-${targetReleaseId}.db`));
  writePendingDeploy(projectDir, { candidateReleaseId: targetReleaseId, snapshotPath: safety.path, databasePath, at: now });
  await restoreSnapshot(snapshotPathOf(projectDir, snapshotOf), databasePath);
  return safety.path;
}

/** After the switch: forget the in-flight record and drop a rollback's safety copy. */
export async function commitPendingDeploy(projectDir: string, safetyCopy: string | null): Promise<void> {
  await clearPendingDeploy(projectDir);
  if (safetyCopy) await rm(safetyCopy, { force: true });
}

/** Snapshot the database (writer stopped), record the deploy as in flight, then apply pending migrations. */
export async function snapshotAndMigrate(
  projectDir: string,
  candidateReleaseId: string,
  target: MigrationTarget,
  now: number,
): Promise<{ snapshot: Snapshot; migrated: MigrateResult }> {
  const snapshot = await createSnapshot(target.databasePath, join(projectDir, 'snapshots', `${candidateReleaseId}.db`));
  writePendingDeploy(projectDir, { candidateReleaseId, snapshotPath: snapshot.path, databasePath: target.databasePath, at: now });
  const migrated = await migrateDatabase(target);
  return { snapshot, migrated };
}

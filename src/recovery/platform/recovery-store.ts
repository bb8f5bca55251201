// Control-database rows of platform recovery: which projects have it enabled (with their sealed key)
// and the restored databases waiting for activation. Only this module touches these tables.
import type { Migration } from '../../core/db-migrations.js';
import type { FeatureContext } from '../../core/feature-context.js';
import { isoTime } from '../../core/feature-context.js';
import type { RecoveryRestore } from '../contract.js';

/** Recovery tables; rows go with their project (ON DELETE CASCADE). */
export const recoveryMigrations: readonly Migration[] = [
  {
    scope: 'recovery',
    version: 1,
    name: 'per-project recovery settings and restored databases',
    up(db) {
      db.exec(`
        CREATE TABLE project_recovery (
          project_id TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
          key_box BLOB NOT NULL,
          enabled_at INTEGER NOT NULL,
          current_epoch TEXT,
          updated_at INTEGER NOT NULL) STRICT;
        CREATE TABLE recovery_restores (
          id TEXT PRIMARY KEY,
          project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
          epoch_dir TEXT NOT NULL, epoch_id TEXT NOT NULL,
          sequence INTEGER NOT NULL, commit_time INTEGER NOT NULL,
          size_bytes INTEGER NOT NULL,
          created_at INTEGER NOT NULL, activated_at INTEGER) STRICT;
        CREATE INDEX recovery_restores_project ON recovery_restores (project_id, created_at);
        CREATE TABLE recovery_epoch_releases (
          project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
          epoch_dir TEXT NOT NULL,
          release_id TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (project_id, epoch_dir)) STRICT;`);
    },
  },
];

type Db = Pick<FeatureContext, 'db'>;

/** A project_recovery row. */
export interface ProjectRecoveryRow {
  project_id: string;
  key_box: Buffer;
  enabled_at: number;
  current_epoch: string | null;
  updated_at: number;
}

/** A recovery_restores row. */
export interface RestoreRow {
  id: string;
  project_id: string;
  epoch_dir: string;
  epoch_id: string;
  sequence: number;
  commit_time: number;
  size_bytes: number;
  created_at: number;
  activated_at: number | null;
}

/** The recovery settings of a project, or undefined when it was never enabled. */
export function findProjectRecovery(ctx: Db, projectId: string): ProjectRecoveryRow | undefined {
  return ctx.db.prepare('SELECT * FROM project_recovery WHERE project_id = ?').get(projectId) as ProjectRecoveryRow | undefined;
}

/** Whether a project has point-in-time recovery enabled (for other features, e.g. canary refusing two writers). */
export function recoveryEnabled(ctx: Db, projectId: string): boolean {
  return findProjectRecovery(ctx, projectId) !== undefined;
}

/** Enable recovery with a sealed key; false when it already was enabled (the key is never replaced). */
export function insertProjectRecovery(ctx: Db, projectId: string, keyBox: Buffer, now: number): boolean {
  return (
    ctx.db
      .prepare('INSERT INTO project_recovery (project_id, key_box, enabled_at, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (project_id) DO NOTHING')
      .run(projectId, keyBox, now, now).changes === 1
  );
}

/** Remember the epoch directory the latest app start was given. */
export function setCurrentEpoch(ctx: Db, projectId: string, epoch: string, now: number): void {
  ctx.db.prepare('UPDATE project_recovery SET current_epoch = ?, updated_at = ? WHERE project_id = ?').run(epoch, now, projectId);
}

/** Remember which release's start was given a fresh epoch directory (it begins the epoch). */
export function setEpochRelease(ctx: Db, projectId: string, epoch: string, releaseId: string, now: number): void {
  ctx.db
    .prepare(
      'INSERT INTO recovery_epoch_releases (project_id, epoch_dir, release_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (project_id, epoch_dir) DO UPDATE SET release_id = excluded.release_id',
    )
    .run(projectId, epoch, releaseId, now);
}

/** Epoch directory → the release whose start began it. */
export function epochReleases(ctx: Db, projectId: string): Map<string, string> {
  return new Map(
    (
      ctx.db.prepare('SELECT epoch_dir, release_id FROM recovery_epoch_releases WHERE project_id = ?').all(projectId) as {
        epoch_dir: string;
        release_id: string;
      }[]
    ).map((r) => [r.epoch_dir, r.release_id]),
  );
}

/** Every sealed key (master-key rotation). */
export function allKeyBoxes(ctx: Db): { project_id: string; key_box: Buffer }[] {
  return ctx.db.prepare('SELECT project_id, key_box FROM project_recovery').all() as { project_id: string; key_box: Buffer }[];
}

/** Replace a sealed key (master-key rotation, inside its transaction). */
export function replaceKeyBox(ctx: Db, projectId: string, keyBox: Buffer): void {
  ctx.db.prepare('UPDATE project_recovery SET key_box = ? WHERE project_id = ?').run(keyBox, projectId);
}

/** Record a restored database. */
export function insertRestore(ctx: Db, row: RestoreRow): void {
  ctx.db
    .prepare(
      'INSERT INTO recovery_restores (id, project_id, epoch_dir, epoch_id, sequence, commit_time, size_bytes, created_at, activated_at) VALUES (@id, @project_id, @epoch_dir, @epoch_id, @sequence, @commit_time, @size_bytes, @created_at, @activated_at)',
    )
    .run(row);
}

/** One restore of a project. */
export function findRestore(ctx: Db, projectId: string, restoreId: string): RestoreRow | undefined {
  return ctx.db.prepare('SELECT * FROM recovery_restores WHERE project_id = ? AND id = ?').get(projectId, restoreId) as RestoreRow | undefined;
}

/** Restores of a project, newest first (at most 100). */
export function listRestores(ctx: Db, projectId: string): RestoreRow[] {
  return ctx.db.prepare('SELECT * FROM recovery_restores WHERE project_id = ? ORDER BY created_at DESC, id DESC LIMIT 100').all(projectId) as RestoreRow[];
}

/** Mark a restore as activated. */
export function markRestoreActivated(ctx: Db, restoreId: string, now: number): void {
  ctx.db.prepare('UPDATE recovery_restores SET activated_at = ? WHERE id = ?').run(now, restoreId);
}

/** The wire form of a restore row. */
export function toRecoveryRestore(row: RestoreRow): RecoveryRestore {
  return {
    id: row.id,
    epoch: row.epoch_dir,
    epochId: row.epoch_id,
    sequence: row.sequence,
    commitAt: isoTime(row.commit_time),
    sizeBytes: row.size_bytes,
    createdAt: isoTime(row.created_at),
    activatedAt: row.activated_at === null ? null : isoTime(row.activated_at),
  };
}

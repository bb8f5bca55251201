// Control-database rows of backups (wrapped data keys, never plaintext keys) and schedules.
// Only this module touches these tables.
import type { ControlDb } from '../core/control-db.js';
import type { Migration } from '../core/db-migrations.js';
import type { FeatureContext } from '../core/feature-context.js';
import { isoTime } from '../core/feature-context.js';
import { openBox, sealBox, type Keyring } from '../secrets/index.js';
import type { Backup, BackupSchedule } from './contract.js';
import { isOverdue } from './backup-schedule.js';

/** Backups tables; rows go with their project (ON DELETE CASCADE), files with the project root. */
export const backupsMigrations: readonly Migration[] = [
  {
    scope: 'backups',
    version: 1,
    name: 'backups, backup schedules',
    up(db) {
      db.exec(`
        CREATE TABLE backups (
          id TEXT PRIMARY KEY,
          project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
          kind TEXT NOT NULL CHECK (kind IN ('manual','scheduled')),
          path TEXT NOT NULL, size_bytes INTEGER NOT NULL, database_bytes INTEGER NOT NULL, had_database INTEGER NOT NULL,
          wrapped_key BLOB NOT NULL,
          created_by_type TEXT NOT NULL, created_by_id TEXT NOT NULL, created_by_name TEXT,
          created_at INTEGER NOT NULL) STRICT;
        CREATE INDEX backups_project ON backups (project_id, created_at);
        CREATE TABLE backup_schedules (
          project_id TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
          interval_ms INTEGER NOT NULL, keep_count INTEGER NOT NULL, max_age_ms INTEGER NOT NULL,
          next_due_at INTEGER NOT NULL, last_success_at INTEGER, overdue_reported_at INTEGER,
          updated_at INTEGER NOT NULL) STRICT;`);
    },
  },
  {
    scope: 'backups',
    version: 2,
    name: 'last failed scheduled run (for the backup.failed alert)',
    up(db) {
      db.exec('ALTER TABLE backup_schedules ADD COLUMN last_failure_at INTEGER; ALTER TABLE backup_schedules ADD COLUMN last_failure_code TEXT;');
    },
  },
];

/** A backups row. */
export interface BackupRow {
  id: string;
  project_id: string;
  kind: 'manual' | 'scheduled';
  path: string;
  size_bytes: number;
  database_bytes: number;
  had_database: number;
  wrapped_key: Buffer;
  created_by_type: string;
  created_by_id: string;
  created_by_name: string | null;
  created_at: number;
}

/** A backup_schedules row. */
export interface ScheduleRow {
  project_id: string;
  interval_ms: number;
  keep_count: number;
  max_age_ms: number;
  next_due_at: number;
  last_success_at: number | null;
  overdue_reported_at: number | null;
  updated_at: number;
  /** The last failed scheduled run and its stable code (cleared by the next success). */
  last_failure_at: number | null;
  last_failure_code: string | null;
}

type Db = Pick<FeatureContext, 'db'>;

/** AAD of a backup's wrapped data key. */
export function backupKeyAad(projectId: string, backupId: string): Buffer {
  return Buffer.from(`svc-backup-key/v1\0${projectId}\0${backupId}`, 'utf8');
}

/** Wrap a fresh data key under the keyring's backups key. */
export function wrapDataKey(keyring: Keyring, projectId: string, backupId: string, dataKey: Buffer): Buffer {
  return sealBox(keyring.backupsKey, dataKey, backupKeyAad(projectId, backupId));
}

/** Unwrap a backup's data key (SVC_BACKUP_DECRYPT_FAILED when the row was altered or the key is wrong). */
export function unwrapDataKey(keyring: Keyring, row: BackupRow): Buffer {
  return openBox(keyring.backupsKey, row.wrapped_key, backupKeyAad(row.project_id, row.id), 'SVC_BACKUP_DECRYPT_FAILED');
}

/** Rotation hook: re-wrap every backup data key from one keyring to another (inside the rotation transaction). */
export function rewrapBackupKeys(db: ControlDb, from: Keyring, to: Keyring): number {
  const rows = db.prepare('SELECT * FROM backups').all() as BackupRow[];
  const update = db.prepare('UPDATE backups SET wrapped_key = ? WHERE id = ?');
  for (const row of rows) update.run(wrapDataKey(to, row.project_id, row.id, unwrapDataKey(from, row)), row.id);
  return rows.length;
}

/** Insert a finished backup. */
export function insertBackup(ctx: Db, row: BackupRow): void {
  ctx.db
    .prepare(
      `INSERT INTO backups (id, project_id, kind, path, size_bytes, database_bytes, had_database, wrapped_key, created_by_type, created_by_id, created_by_name, created_at)
       VALUES (@id, @project_id, @kind, @path, @size_bytes, @database_bytes, @had_database, @wrapped_key, @created_by_type, @created_by_id, @created_by_name, @created_at)`,
    )
    .run(row);
}

/** Backups of a project, newest first. */
export function listBackups(ctx: Db, projectId: string): BackupRow[] {
  return ctx.db.prepare('SELECT * FROM backups WHERE project_id = ? ORDER BY created_at DESC, id DESC').all(projectId) as BackupRow[];
}

/** One backup of a project. */
export function findBackup(ctx: Db, projectId: string, backupId: string): BackupRow | undefined {
  return ctx.db.prepare('SELECT * FROM backups WHERE project_id = ? AND id = ?').get(projectId, backupId) as BackupRow | undefined;
}

/** Delete a backup row. */
export function deleteBackupRow(ctx: Db, backupId: string): void {
  ctx.db.prepare('DELETE FROM backups WHERE id = ?').run(backupId);
}

/** The schedule of a project, if any. */
export function findSchedule(ctx: Db, projectId: string): ScheduleRow | undefined {
  return ctx.db.prepare('SELECT * FROM backup_schedules WHERE project_id = ?').get(projectId) as ScheduleRow | undefined;
}

/** Every schedule. */
export function listSchedules(ctx: Db): ScheduleRow[] {
  return ctx.db.prepare('SELECT * FROM backup_schedules ORDER BY next_due_at').all() as ScheduleRow[];
}

/** Create or replace a project's schedule (the first run is due one interval from now). */
export function upsertSchedule(ctx: Db, projectId: string, input: { intervalMs: number; keep: number; maxAgeMs: number }, now: number): void {
  ctx.db
    .prepare(
      `INSERT INTO backup_schedules (project_id, interval_ms, keep_count, max_age_ms, next_due_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (project_id) DO UPDATE SET interval_ms = excluded.interval_ms, keep_count = excluded.keep_count, max_age_ms = excluded.max_age_ms,
         next_due_at = excluded.next_due_at, updated_at = excluded.updated_at`,
    )
    .run(projectId, input.intervalMs, input.keep, input.maxAgeMs, now + input.intervalMs, now);
}

/** Remove a project's schedule; false when there was none. */
export function deleteSchedule(ctx: Db, projectId: string): boolean {
  return ctx.db.prepare('DELETE FROM backup_schedules WHERE project_id = ?').run(projectId).changes > 0;
}

/** Record the outcome of a scheduled run. */
export function recordScheduledRun(ctx: Db, projectId: string, outcome: { ok: boolean; nextDueAt: number; now: number; failureCode?: string }): void {
  if (outcome.ok) {
    ctx.db
      .prepare(
        'UPDATE backup_schedules SET next_due_at = ?, last_success_at = ?, overdue_reported_at = NULL, last_failure_at = NULL, last_failure_code = NULL WHERE project_id = ?',
      )
      .run(outcome.nextDueAt, outcome.now, projectId);
  } else {
    ctx.db
      .prepare('UPDATE backup_schedules SET next_due_at = ?, last_failure_at = ?, last_failure_code = ? WHERE project_id = ?')
      .run(outcome.nextDueAt, outcome.now, outcome.failureCode ?? 'SVC_BACKUP_FAILED', projectId);
  }
}

/** Remember that the overdue state was reported (audited once per episode). */
export function markOverdueReported(ctx: Db, projectId: string, now: number): void {
  ctx.db.prepare('UPDATE backup_schedules SET overdue_reported_at = ? WHERE project_id = ?').run(now, projectId);
}

/** Wire shape of a backup. */
export function toBackup(row: BackupRow): Backup {
  return {
    id: row.id,
    projectId: row.project_id,
    kind: row.kind,
    createdAt: isoTime(row.created_at),
    sizeBytes: row.size_bytes,
    databaseBytes: row.database_bytes,
    hadDatabase: row.had_database === 1,
    createdBy: { type: row.created_by_type, id: row.created_by_id, name: row.created_by_name },
  };
}

/** Wire shape of a schedule. */
export function toSchedule(row: ScheduleRow, now: number): BackupSchedule {
  return {
    intervalMinutes: Math.round(row.interval_ms / 60_000),
    keep: row.keep_count,
    maxAgeDays: Math.round(row.max_age_ms / 86_400_000),
    nextDueAt: isoTime(row.next_due_at),
    lastSuccessAt: row.last_success_at === null ? null : isoTime(row.last_success_at),
    lastFailure: row.last_failure_at === null ? null : { at: isoTime(row.last_failure_at), code: row.last_failure_code ?? 'SVC_BACKUP_FAILED' },
    overdue: isOverdue(row, now),
  };
}

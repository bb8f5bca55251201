// Backup operations, each under the shared durable project lock (so a backup waits for a running
// deploy, rollback or deletion and never interleaves with it): take a consistent encrypted backup,
// restore one into the stopped app, decrypt one for download, delete one, apply retention.
import { randomBytes } from 'node:crypto';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FeatureContext } from '../core/feature-context.js';
import { SvcError, isSvcError } from '../core/errors.js';
import type { ProjectLocks } from '../core/project-lock.js';
import { appendAudit, type AuditInput } from '../audit/append-audit.js';
import { projectRoot } from '../projects/index.js';
import type { ReleaseDriver } from '../../runner/release-driver.js';
import type { Keyring } from '../secrets/index.js';
import { backupRestorePhrase } from './contract.js';
import { decryptBackupFile, encryptBackupFile } from './backup-format.js';
import { backupsToPrune } from './backup-schedule.js';
import { deleteBackupRow, findBackup, findSchedule, insertBackup, listBackups, unwrapDataKey, wrapDataKey, type BackupRow } from './backup-store.js';

/**
 * Stop and start a project's app around a restore. The releases feature provides it, so the ingress
 * route follows the app; backups never drive the supervisor or the routes themselves.
 */
export interface AppControl {
  /** Take the project out of the ingress, let in-flight requests finish, stop its supervised app. */
  stop(projectId: string): Promise<void>;
  /** Start (and supervise) a release again; resolves once it is healthy and routed, throws otherwise. */
  start(projectId: string, releaseId: string): Promise<void>;
}

/**
 * The release driver's one-off jobs: backups copy and put back a database only through its
 * `snapshot` and `restore-snapshot` jobs, so they run where and how the driver runs them.
 */
export type BackupJobs = Pick<ReleaseDriver, 'runJob'>;

export interface BackupDeps {
  ctx: FeatureContext;
  locks: ProjectLocks;
  keyring: Keyring;
  apps: AppControl;
  jobs: BackupJobs;
  /** The project database path and active release, or null when the project has no release yet. */
  database(projectId: string): { path: string; activeReleaseId: string | null } | null;
  /** How long a backup waits for the project lock (a deploy may be running). */
  lockWaitMs: number;
}

/** The project and the actor of an operation. */
export interface BackupSubject {
  project: { id: string; slug: string; organizationId: string };
  actor: AuditInput['actor'];
}

/** `<projectRoot>/backups`. */
export function backupsDir(dataDir: string, projectId: string): string {
  return join(projectRoot(dataDir, projectId), 'backups');
}

function scratchPath(dataDir: string, projectId: string, name: string): string {
  return join(projectRoot(dataDir, projectId), 'tmp', `${name}-${randomBytes(6).toString('hex')}.db`);
}

/** Take an encrypted backup now (manual or scheduled); failures are audited as backup.failed. */
export async function createBackup(deps: BackupDeps, subject: BackupSubject, kind: BackupRow['kind']): Promise<BackupRow> {
  const { ctx } = deps;
  const projectId = subject.project.id;
  try {
    return await deps.locks.withLock(
      projectId,
      kind === 'scheduled' ? 'scheduled-backup' : 'backup',
      async () => {
        const database = deps.database(projectId);
        if (!database) throw new SvcError('SVC_BACKUP_NO_RELEASE', 'The project has no release yet, so there is no database to back up.');
        const id = ctx.ids('bak');
        const scratch = scratchPath(ctx.config.dataDir, projectId, `backup-${id}`);
        const dest = join(backupsDir(ctx.config.dataDir, projectId), `${id}.svcbak`);
        await mkdir(backupsDir(ctx.config.dataDir, projectId), { recursive: true, mode: 0o700 });
        try {
          const snapshot = await deps.jobs.runJob({ type: 'snapshot', databasePath: database.path, snapshotPath: scratch });
          const dataKey = randomBytes(32);
          const now = ctx.clock.now();
          const size = await encryptBackupFile(scratch, dest, dataKey, {
            format: 'svc-backup/1',
            backupId: id,
            projectId,
            createdAt: now,
            hadDatabase: snapshot.hadDatabase,
          });
          const row: BackupRow = {
            id,
            project_id: projectId,
            kind,
            path: dest,
            size_bytes: size,
            database_bytes: snapshot.sizeBytes,
            had_database: snapshot.hadDatabase ? 1 : 0,
            wrapped_key: wrapDataKey(deps.keyring, projectId, id, dataKey),
            created_by_type: subject.actor.type,
            created_by_id: subject.actor.id,
            created_by_name: subject.actor.name ?? null,
            created_at: now,
          };
          ctx.db.transaction(() => {
            insertBackup(ctx, row);
            appendAudit(ctx, {
              kind: 'backup.create',
              organizationId: subject.project.organizationId,
              projectId,
              actor: subject.actor,
              metadata: { backupId: id, kind, sizeBytes: size, databaseBytes: snapshot.sizeBytes },
            });
          })();
          if (kind === 'scheduled') await applyRetention(deps, subject);
          return row;
        } catch (error) {
          await rm(dest, { force: true });
          throw error;
        } finally {
          await rm(scratch, { force: true });
        }
      },
      { waitMs: deps.lockWaitMs },
    );
  } catch (error) {
    const code = isSvcError(error) ? error.code : 'SVC_BACKUP_FAILED';
    try {
      appendAudit(ctx, {
        kind: 'backup.failed',
        organizationId: subject.project.organizationId,
        projectId,
        actor: subject.actor,
        metadata: { kind, code, reason: (error as Error).message.slice(0, 300) },
      });
    } catch (auditError) {
      ctx.logger.error({ err: auditError, projectId }, 'could not audit a failed backup');
    }
    if (isSvcError(error)) throw error;
    throw new SvcError('SVC_BACKUP_FAILED', `The backup failed: ${(error as Error).message}`, { cause: error });
  }
}

/** Remove scheduled backups beyond the schedule's retention (count and age). Call under the lock. */
export async function applyRetention(deps: BackupDeps, subject: BackupSubject): Promise<number> {
  const { ctx } = deps;
  const schedule = findSchedule(ctx, subject.project.id);
  if (!schedule) return 0;
  const scheduled = listBackups(ctx, subject.project.id).filter((b) => b.kind === 'scheduled');
  const doomed = backupsToPrune(scheduled, schedule.keep_count, schedule.max_age_ms, ctx.clock.now());
  for (const row of doomed) await removeBackup(deps, subject, row, 'retention');
  return doomed.length;
}

async function removeBackup(deps: BackupDeps, subject: BackupSubject, row: BackupRow, reason: 'retention' | 'request'): Promise<void> {
  // Row first: a crash after it leaves an unreferenced file, never a row without its file.
  deps.ctx.db.transaction(() => {
    deleteBackupRow(deps.ctx, row.id);
    appendAudit(deps.ctx, {
      kind: 'backup.delete',
      organizationId: subject.project.organizationId,
      projectId: subject.project.id,
      actor: subject.actor,
      metadata: { backupId: row.id, reason },
    });
  })();
  await rm(row.path, { force: true });
}

/** Delete one backup by request. */
export async function deleteBackup(deps: BackupDeps, subject: BackupSubject, backupId: string): Promise<void> {
  await deps.locks.withLock(
    subject.project.id,
    'backup-delete',
    async () => removeBackup(deps, subject, requireBackup(deps, subject.project.id, backupId), 'request'),
    { waitMs: deps.lockWaitMs },
  );
}

function requireBackup(deps: BackupDeps, projectId: string, backupId: string): BackupRow {
  const row = findBackup(deps.ctx, projectId, backupId);
  if (!row) throw new SvcError('SVC_BACKUP_NOT_FOUND', `No backup ${backupId.slice(0, 100)} in this project.`);
  return row;
}

/** Decrypt a backup into a private scratch file (authenticated end to end); the caller removes it. */
export async function decryptToScratch(deps: BackupDeps, row: BackupRow): Promise<string> {
  const scratch = scratchPath(deps.ctx.config.dataDir, row.project_id, `restore-${row.id}`);
  await mkdir(join(projectRoot(deps.ctx.config.dataDir, row.project_id), 'tmp'), { recursive: true, mode: 0o700 });
  await decryptBackupFile(row.path, scratch, unwrapDataKey(deps.keyring, row), { backupId: row.id, projectId: row.project_id });
  return scratch;
}

/** Decrypt a backup for download, under the lock (so it is not pruned meanwhile). Returns the scratch path. */
export async function openBackupForDownload(deps: BackupDeps, projectId: string, backupId: string): Promise<{ path: string; row: BackupRow; bytes: number }> {
  return deps.locks.withLock(
    projectId,
    'backup-download',
    async () => {
      const row = requireBackup(deps, projectId, backupId);
      const path = await decryptToScratch(deps, row);
      return { path, row, bytes: (await stat(path)).size };
    },
    { waitMs: deps.lockWaitMs },
  );
}

/**
 * Restore a backup into the project database with `restore <slug>` confirmation: under the lock,
 * decrypt and authenticate first (a tampered file changes nothing), stop the app, put the database
 * back (stale WAL removed), start the active release again, audit backup.restore.
 */
export async function restoreBackup(
  deps: BackupDeps,
  subject: BackupSubject,
  backupId: string,
  confirm: string,
): Promise<{ row: BackupRow; restartedReleaseId: string | null }> {
  const phrase = backupRestorePhrase(subject.project.slug);
  if (confirm !== phrase) throw new SvcError('SVC_BACKUP_CONFIRMATION_MISMATCH', `Type exactly: ${phrase}`);
  const { ctx } = deps;
  const projectId = subject.project.id;
  return deps.locks.withLock(
    projectId,
    'backup-restore',
    async () => {
      const row = requireBackup(deps, projectId, backupId);
      const database = deps.database(projectId);
      if (!database) throw new SvcError('SVC_BACKUP_NO_RELEASE', 'The project has no release to restore the database of.');
      const scratch = await decryptToScratch(deps, row);
      try {
        await deps.apps.stop(projectId);
        let restoreError: unknown = null;
        try {
          await deps.jobs.runJob({ type: 'restore-snapshot', snapshotPath: scratch, databasePath: database.path });
        } catch (error) {
          restoreError = error;
        }
        // Start the active release again whether or not the restore worked (its data is intact either way).
        let startError: string | null = null;
        if (database.activeReleaseId) {
          await deps.apps.start(projectId, database.activeReleaseId).catch((error: unknown) => {
            startError = isSvcError(error) ? error.code : 'SVC_APP_START_FAILED';
            ctx.logger.error({ err: error, projectId }, 'restore: the active release did not start again');
          });
        }
        if (restoreError) throw restoreError;
        ctx.db.transaction(() => {
          appendAudit(ctx, {
            kind: 'backup.restore',
            organizationId: subject.project.organizationId,
            projectId,
            actor: subject.actor,
            metadata: { backupId: row.id, backupCreatedAt: row.created_at, restartedReleaseId: database.activeReleaseId, restartError: startError },
          });
        })();
        return { row, restartedReleaseId: database.activeReleaseId };
      } finally {
        await rm(scratch, { force: true });
      }
    },
    { waitMs: deps.lockWaitMs },
  );
}

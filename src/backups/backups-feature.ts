// The backups feature as the composition root sees it: operations, routes and the scheduler.
import type { FeatureContext } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import type { ProjectLocks } from '../core/project-lock.js';
import { appendAudit } from '../audit/append-audit.js';
import { activeReleaseRow, databasePathOf, listReleases, projectLayout, releaseConfig } from '../releases/index.js';
import type { Keyring } from '../secrets/index.js';
import { setScheduleBodySchema } from './contract.js';
import { BackupScheduler, type SchedulerTimer } from './backup-scheduler.js';
import { createBackup, deleteBackup, openBackupForDownload, restoreBackup, type AppControl, type BackupDeps, type BackupJobs } from './backup-service.js';
import { deleteSchedule, findSchedule, listBackups, toBackup, toSchedule, upsertSchedule } from './backup-store.js';
import { backupRoutes } from './backup-routes.js';
import type { BackupOperations } from './backup-operations.js';
import type { HttpApp } from '../core/http/create-http-app.js';
import { readBackupSettings } from './backup-settings.js';

export interface BackupsOptions {
  locks: ProjectLocks;
  keyring: Keyring;
  apps: AppControl;
  /** The release driver's snapshot jobs (releases.driver). */
  jobs: BackupJobs;
  /** Scheduler timer (default setInterval) and tick interval (default SVC_BACKUP_TICK_MS or 60 s). */
  timer?: SchedulerTimer;
  tickMs?: number;
  /** Lock wait of backup work (default SVC_BACKUP_LOCK_WAIT_MS or 10 minutes). */
  lockWaitMs?: number;
}

/** The operations plus what the composition root wires: routes and the scheduler. */
export interface BackupsFeature extends BackupOperations {
  scheduler: BackupScheduler;
  routes: (app: HttpApp) => Promise<void>;
  start(): void;
  close(): Promise<void>;
}

/** The project database as the active (or newest) release configures it; null before any release. */
export function projectDatabase(ctx: FeatureContext, projectId: string): { path: string; activeReleaseId: string | null } | null {
  const active = activeReleaseRow(ctx, projectId);
  const reference = active ?? listReleases(ctx, projectId).find((r) => r.status !== 'candidate');
  if (!reference) return null;
  return { path: databasePathOf(projectLayout(ctx.config.dataDir, projectId), releaseConfig(reference).database.path), activeReleaseId: active?.id ?? null };
}

/** Build the backups feature (the scheduler runs after start()). */
export function createBackups(ctx: FeatureContext, options: BackupsOptions): BackupsFeature {
  const settings = readBackupSettings(ctx.config.env);
  const deps: BackupDeps = {
    ctx,
    locks: options.locks,
    keyring: options.keyring,
    apps: options.apps,
    jobs: options.jobs,
    database: (projectId) => projectDatabase(ctx, projectId),
    lockWaitMs: options.lockWaitMs ?? settings.lockWaitMs,
  };
  const scheduler = new BackupScheduler(deps, {
    ...(options.timer ? { timer: options.timer } : {}),
    tickMs: options.tickMs ?? settings.tickMs,
  });
  const feature: BackupsFeature = {
    deps,
    scheduler,
    routes: (app) => backupRoutes(feature)(app),
    list(projectId) {
      const schedule = findSchedule(ctx, projectId);
      return { backups: listBackups(ctx, projectId).map(toBackup), schedule: schedule ? toSchedule(schedule, ctx.clock.now()) : null };
    },
    create: (subject, kind) => createBackup(deps, subject, kind),
    delete: (subject, backupId) => deleteBackup(deps, subject, backupId),
    download: (projectId, backupId) => openBackupForDownload(deps, projectId, backupId),
    restore: (subject, backupId, confirm) => restoreBackup(deps, subject, backupId, confirm),
    setSchedule(subject, input) {
      const now = ctx.clock.now();
      return ctx.db
        .transaction(() => {
          if (input === null) {
            const removed = deleteSchedule(ctx, subject.project.id);
            if (removed)
              appendAudit(ctx, {
                kind: 'backup.schedule',
                organizationId: subject.project.organizationId,
                projectId: subject.project.id,
                actor: subject.actor,
                metadata: { enabled: false },
              });
            return null;
          }
          const parsed = setScheduleBodySchema.safeParse(input);
          if (!parsed.success || parsed.data.maxAgeDays * 24 * 60 < parsed.data.intervalMinutes)
            throw new SvcError('SVC_BACKUP_SCHEDULE_INVALID', 'The maximum age must be at least one interval; interval 5 minutes to 30 days, keep 1–1000.');
          const s = parsed.data;
          upsertSchedule(ctx, subject.project.id, { intervalMs: s.intervalMinutes * 60_000, keep: s.keep, maxAgeMs: s.maxAgeDays * 86_400_000 }, now);
          appendAudit(ctx, {
            kind: 'backup.schedule',
            organizationId: subject.project.organizationId,
            projectId: subject.project.id,
            actor: subject.actor,
            metadata: { enabled: true, intervalMinutes: s.intervalMinutes, keep: s.keep, maxAgeDays: s.maxAgeDays },
          });
          return toSchedule(findSchedule(ctx, subject.project.id)!, now);
        })
        .immediate();
    },
    start: () => scheduler.start(),
    close: () => scheduler.close(),
  };
  return feature;
}

// Runs scheduled backups: every tick (injected timer, default each minute) each due schedule gets
// one backup (waiting for the project lock), retention is applied, and a schedule with no success
// for two intervals is audited once as backup.overdue (the operations alerts read these events).
import type { FeatureContext } from '../core/feature-context.js';
import { isSvcError } from '../core/errors.js';
import { appendAudit } from '../audit/append-audit.js';
import { findProject } from '../projects/index.js';
import { createBackup, type BackupDeps, type BackupSubject } from './backup-service.js';
import { isDue, nextDueAfter, shouldReportOverdue } from './backup-schedule.js';
import { listSchedules, markOverdueReported, recordScheduledRun, type ScheduleRow } from './backup-store.js';

/** A repeating timer (setInterval by default); tests drive `tick()` directly with a manual clock. */
export interface SchedulerTimer {
  every(ms: number, fn: () => void): () => void;
}

/** setInterval that does not keep the process alive. */
const intervalTimer: SchedulerTimer = {
  every(ms, fn) {
    const handle = setInterval(fn, ms);
    handle.unref();
    return () => clearInterval(handle);
  },
};

const SYSTEM_ACTOR = { type: 'system' as const, id: 'svc-backup-scheduler', name: 'backup scheduler' };

/** Scheduled backups of every project. */
export class BackupScheduler {
  private cancel: (() => void) | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly deps: BackupDeps,
    private readonly options: { timer?: SchedulerTimer; tickMs?: number } = {},
  ) {}

  /** Start ticking. */
  start(): void {
    if (this.cancel) return;
    this.cancel = (this.options.timer ?? intervalTimer).every(this.options.tickMs ?? 60_000, () => {
      this.tick().catch((error: unknown) => this.deps.ctx.logger.error({ err: error }, 'backup scheduler pass failed'));
    });
  }

  /** One pass over every schedule; overlapping calls share the running pass. */
  tick(): Promise<void> {
    this.running ??= this.pass().finally(() => (this.running = null));
    return this.running;
  }

  /** Stop ticking and wait for a running pass. */
  async close(): Promise<void> {
    this.cancel?.();
    this.cancel = null;
    await this.running;
  }

  private async pass(): Promise<void> {
    const ctx: FeatureContext = this.deps.ctx;
    for (const schedule of listSchedules(ctx)) {
      try {
        await this.runOne(schedule);
      } catch (error) {
        // One project's trouble (e.g. it was deleted meanwhile) never stops the others.
        ctx.logger.error({ err: error, projectId: schedule.project_id }, 'backup scheduler: schedule failed');
      }
    }
  }

  private async runOne(schedule: ScheduleRow): Promise<void> {
    const ctx: FeatureContext = this.deps.ctx;
    const project = findProject(ctx, schedule.project_id);
    if (!project) return;
    const subject: BackupSubject = { project: { id: project.id, slug: project.slug, organizationId: project.organization_id }, actor: SYSTEM_ACTOR };
    const now = ctx.clock.now();
    if (isDue(schedule, now)) {
      let ok = true;
      let failureCode: string | undefined;
      try {
        await createBackup(this.deps, subject, 'scheduled');
      } catch (error) {
        ok = false; // audited as backup.failed by createBackup; recorded on the schedule for the monitor
        failureCode = isSvcError(error) ? error.code : 'SVC_BACKUP_FAILED';
        ctx.logger.warn({ err: error, projectId: project.id }, 'scheduled backup failed');
      }
      const after = ctx.clock.now();
      recordScheduledRun(ctx, project.id, { ok, nextDueAt: nextDueAfter(schedule, after, ok), now: after, ...(failureCode ? { failureCode } : {}) });
    }
    const current = listSchedules(ctx).find((s) => s.project_id === project.id);
    const at = ctx.clock.now();
    if (current && shouldReportOverdue(current, at)) {
      ctx.db.transaction(() => {
        markOverdueReported(ctx, project.id, at);
        appendAudit(ctx, {
          kind: 'backup.overdue',
          organizationId: project.organization_id,
          projectId: project.id,
          actor: SYSTEM_ACTOR,
          metadata: { intervalMinutes: Math.round(current.interval_ms / 60_000), lastSuccessAt: current.last_success_at, nextDueAt: current.next_due_at },
        });
      })();
    }
  }
}

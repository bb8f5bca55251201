import type { BackupsFeature } from '../../backups/index.js';
import type { ControlDb } from '../../core/control-db.js';
import type { FeatureContext } from '../../core/feature-context.js';
import { listReleases } from '../../releases/index.js';
import type { GracedCondition } from './condition-grace.js';
import type { Condition } from './incident-transitions.js';

/** Looks at a page of projects and returns the problems it sees now (a grace delays the incident). */
export type MonitorSource = (projectIds: readonly string[], now: number, signal?: AbortSignal) => GracedCondition[] | Promise<GracedCondition[]>;

/** Deployment failure: the project's latest release failed (read through the releases feature). */
export function deploymentFailureSource(ctx: Pick<FeatureContext, 'db' | 'clock' | 'ids'>): MonitorSource {
  return (projectIds) => {
    const out: Condition[] = [];
    for (const projectId of projectIds) {
      const latest = listReleases(ctx, projectId)[0];
      if (latest?.status !== 'failed') continue;
      out.push({
        key: `deployment.failed:${projectId}`,
        kind: 'deployment.failed',
        projectId,
        details: { releaseId: latest.id, failureCode: latest.failure_code ?? null },
      });
    }
    return out;
  };
}

/**
 * Backup overdue: the schedule had no successful run for two intervals (as the backups feature
 * reports it through `list`; failed scheduled runs surface this way, backups keeps no failure record).
 */
export function backupOverdueSource(backups: Pick<BackupsFeature, 'list'>): MonitorSource {
  return (projectIds) => {
    const out: Condition[] = [];
    for (const projectId of projectIds) {
      const schedule = backups.list(projectId).schedule;
      if (!schedule?.overdue) continue;
      out.push({
        key: `backup.overdue:${projectId}`,
        kind: 'backup.overdue',
        projectId,
        details: { lastSuccessAt: schedule.lastSuccessAt, nextDueAt: schedule.nextDueAt, intervalMinutes: schedule.intervalMinutes },
      });
    }
    return out;
  };
}

/** Backup failure: the project's last scheduled backup run failed (resolves with the next success). */
export function backupFailureSource(backups: Pick<BackupsFeature, 'list'>): MonitorSource {
  return (projectIds) => {
    const out: Condition[] = [];
    for (const projectId of projectIds) {
      const failure = backups.list(projectId).schedule?.lastFailure;
      if (!failure) continue;
      out.push({ key: `backup.failed:${projectId}`, kind: 'backup.failed', projectId, details: { failedAt: failure.at, code: failure.code } });
    }
    return out;
  };
}

/** Project ids after `afterId` in id order (the registry of projects; ids only). */
export function listProjectIdsPage(db: ControlDb, afterId: string, limit: number): string[] {
  return (db.prepare('SELECT id FROM projects WHERE id > ? ORDER BY id LIMIT ?').all(afterId, limit) as { id: string }[]).map((r) => r.id);
}

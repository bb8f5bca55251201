import type { ControlDb } from '../../core/control-db.js';
import type { MonitorSource } from '../monitor/monitor-sources.js';
import { latestDrillReceipts } from './drill-store.js';

/** Failed drill: the project's newest receipt is `failed` or `setup-failed`; resolves when a later drill passes. */
export function drillFailedSource(db: ControlDb): MonitorSource {
  return (projectIds) =>
    latestDrillReceipts(db, projectIds)
      .filter((r) => r.outcome !== 'passed')
      .map((r) => ({
        key: `drill.failed:${r.projectId}`,
        kind: 'drill.failed',
        projectId: r.projectId,
        details: {
          receiptId: r.id,
          outcome: r.outcome,
          code: r.code,
          backupId: r.backupId,
          releaseId: r.releaseId,
          finishedAt: new Date(r.finishedAt).toISOString(),
        },
      }));
}

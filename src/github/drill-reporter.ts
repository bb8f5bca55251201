// src/ops' observer of restore drills for GitHub: each drill receipt of a linked project's release
// becomes one completed svc/restore-drill check row (the queue syncs it to GitHub like every other check).
import type { FeatureContext } from '../core/feature-context.js';
import { createCheck } from './check-store.js';
import { releaseSource } from './commit-store.js';
import { findLink, problemOf } from './link-store.js';
import type { DrillReceiptEvent, RestoreDrillCheckModel } from './restore-drill-check.js';

/** The observer src/ops calls with each stored receipt: a check row when the project is linked. */
export function createDrillReporter(deps: { ctx: Pick<FeatureContext, 'db' | 'clock' | 'ids'>; wake: () => void }): {
  onDrillReceipt(receipt: DrillReceiptEvent): void;
} {
  return {
    onDrillReceipt(receipt) {
      const { ctx } = deps;
      if (!receipt.releaseId) return;
      const source = releaseSource(ctx, receipt.releaseId);
      const link = source ? findLink(ctx, receipt.projectId) : undefined;
      if (!source || !link || (source.repository_id !== null && source.repository_id !== link.repository_id) || problemOf(ctx, link)) return;
      const { projectId: _p, releaseId, ...rest } = receipt;
      const model: RestoreDrillCheckModel = { kind: 'restore-drill', state: receipt.outcome === 'passed' ? 'success' : 'failure', releaseId, receipt: rest };
      createCheck(ctx, {
        projectId: receipt.projectId,
        fullName: link.full_name,
        installationId: link.installation_id,
        sha: source.sha,
        name: 'svc/restore-drill',
        releaseId,
        model,
      });
      deps.wake();
    },
  };
}

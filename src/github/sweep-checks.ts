// The periodic sweep: a queued svc/release or svc/preview check whose build never arrived is completed as
// timed_out (with help on adding the Action), and an open svc/release or svc/preview check whose release already
// ended (an outcome the observer missed, e.g. across a crash) is completed from the release row.
import type { FeatureContext } from '../core/feature-context.js';
import { findRelease } from '../releases/index.js';
import type { CheckModel } from './check-model.js';
import { findOpenReleaseCheck, updateCheck, type CheckRow } from './check-store.js';
import { overdueCommits, setCommitState } from './commit-store.js';

/** Run one sweep; returns how many checks it completed. */
export function sweepChecks(ctx: FeatureContext, buildTimeoutMs: number): { timedOut: number; reconciled: number } {
  let timedOut = 0;
  let reconciled = 0;
  const now = ctx.clock.now();
  for (const commit of overdueCommits(ctx)) {
    ctx.db
      .transaction(() => {
        setCommitState(ctx, commit.project_id, commit.sha, 'timed_out');
        const open = findOpenReleaseCheck(ctx, commit.project_id, commit.sha);
        if (
          open &&
          updateCheck(ctx, open.id, (m) =>
            m.kind === 'release' && m.state === 'waiting'
              ? { ...m, state: 'timed_out', finishedAt: now, timeoutMinutes: Math.round(buildTimeoutMs / 60_000) }
              : null,
          )
        )
          timedOut++;
      })
      .immediate();
  }
  // A preview check nothing was ever uploaded for (the pull request's workflow is missing or failed).
  const waiting = ctx.db
    .prepare("SELECT * FROM github_checks WHERE completed = 0 AND name = 'svc/preview' AND release_id IS NULL AND created_at <= ?")
    .all(now - buildTimeoutMs) as CheckRow[];
  for (const check of waiting) {
    const minutes = Math.round(buildTimeoutMs / 60_000);
    if (
      updateCheck(ctx, check.id, (m) =>
        m.kind === 'preview' && m.state === 'waiting' ? { ...m, state: 'timed_out', finishedAt: now, timeoutMinutes: minutes } : null,
      )
    )
      timedOut++;
  }
  const open = ctx.db
    .prepare("SELECT * FROM github_checks WHERE completed = 0 AND name IN ('svc/release', 'svc/preview') AND release_id IS NOT NULL")
    .all() as CheckRow[];
  for (const check of open) {
    // A preview's release lives in the preview's own project; the check sits on the linked project's commit.
    const model = JSON.parse(check.model) as CheckModel;
    const projectId = model.kind === 'preview' ? (model.previewProjectId ?? check.project_id) : check.project_id;
    const release = findRelease(ctx, projectId, check.release_id!);
    if (!release || release.status === 'candidate') continue;
    const ok = release.status === 'active' || release.status === 'inactive';
    if (
      updateCheck(ctx, check.id, (m) =>
        m.kind === 'release' || m.kind === 'preview' ? { ...m, state: ok ? 'success' : 'failure', finishedAt: release.finished_at ?? now } : null,
      )
    )
      reconciled++;
  }
  return { timedOut, reconciled };
}

// The canary feature's observer for GitHub: each canary run of a linked project's release becomes one
// svc/canary check on the release's commit, updated stage by stage. Only SQLite writes happen here.
import type { CanaryObserver, CanaryStageEvent } from '../canary/index.js';
import type { CanaryCheckModel } from './canary-check.js';
import { checksOfRelease, createCheck, updateCheck } from './check-store.js';
import { releaseSource } from './commit-store.js';
import { findLink, problemOf } from './link-store.js';
import type { ReporterDeps } from './release-reporter.js';

function apply(model: CanaryCheckModel, event: CanaryStageEvent, now: number): CanaryCheckModel {
  const stages = model.stages.filter((s) => s.index !== event.stageIndex);
  const current = model.stages.find((s) => s.index === event.stageIndex) ?? { index: event.stageIndex, percent: event.trafficPercent, startedAt: now };
  const metrics = { samples: event.metrics.samples, errorRate: event.metrics.errorRate, p95Ms: event.metrics.p95Ms };
  const next = { ...model, stageCount: event.stageCount };
  switch (event.kind) {
    case 'stage-started':
      return { ...next, stages: [...stages, { ...current, percent: event.trafficPercent }].sort((a, b) => a.index - b.index) };
    case 'stage-passed':
      return { ...next, stages: [...stages, { ...current, passedAt: now, metrics }].sort((a, b) => a.index - b.index) };
    case 'promoted':
      return { ...next, state: 'success', finishedAt: now };
    default:
      return {
        ...next,
        state: 'failure',
        finishedAt: now,
        failure: { code: event.code, reason: event.reason },
        stages: model.stages.length ? [...stages, { ...current, metrics }].sort((a, b) => a.index - b.index) : [],
      };
  }
}

/** The CanaryObserver the composition root gives the canary feature. */
export function createCanaryReporter(deps: ReporterDeps): CanaryObserver {
  return {
    onCanaryStage(event) {
      deps.ctx.db.transaction(() => report(deps, event))();
    },
  };
}

/** Apply one canary event to the run's svc/canary check. */
function report(deps: ReporterDeps, event: CanaryStageEvent): void {
  const { ctx } = deps;
  const source = releaseSource(ctx, event.releaseId);
  const link = source ? findLink(ctx, event.projectId) : undefined;
  if (!source || !link || (source.repository_id !== null && source.repository_id !== link.repository_id) || problemOf(ctx, link)) return;
  const now = ctx.clock.now();
  const open = checksOfRelease(ctx, event.releaseId, 'svc/canary').find(
    (c) => !c.completed && (JSON.parse(c.model) as { runId?: string }).runId === event.runId,
  );
  if (open) {
    updateCheck(ctx, open.id, (m) => (m.kind === 'canary' ? apply(m, event, now) : null));
  } else {
    const fresh: CanaryCheckModel = {
      kind: 'canary',
      state: 'in_progress',
      runId: event.runId,
      releaseId: event.releaseId,
      stageCount: event.stageCount,
      stages: [],
      startedAt: now,
    };
    createCheck(ctx, {
      projectId: event.projectId,
      fullName: link.full_name,
      installationId: link.installation_id,
      sha: source.sha,
      name: 'svc/canary',
      releaseId: event.releaseId,
      model: apply(fresh, event, now),
    });
  }
  deps.wake();
}

// The local provider's canary steps: start a code-only candidate beside the running baseline without
// switching, promote it (the pointer moves to the app already serving, no restart; the baseline
// drains like any replaced app), or abort it (the candidate stops; the baseline is another app and
// is never touched). Decisions come from node-canary.ts; the provider's own steps are passed in.
import type { DeployConfig } from '../../src/artifacts/index.js';
import type { Clock } from '../../src/core/clock.js';
import { SvcError } from '../../src/core/errors.js';
import type { RunningApp } from '../app-runner.js';
import { createSnapshot } from '../jobs/snapshot.js';
import type { CanaryCandidates } from './canary-candidates.js';
import { precheckMigrations, readPendingDeploy, snapshotPathOf } from './deploy-safety.js';
import { planCanaryStart } from './node-canary.js';
import type { createProjectFiles, ActivePointer } from './project-files.js';
import type { ReconcileRequest } from './provider-contract.js';
import type { RetiringApps } from './retiring-apps.js';

export interface CanaryStepDeps {
  canaries: CanaryCandidates;
  retiring: RetiringApps;
  /** The provider's pointer apps (the baselines), by project. */
  apps: Map<string, RunningApp>;
  files: ReturnType<typeof createProjectFiles>;
  clock: Clock;
  gate?: (projectId: string) => Promise<void>;
  /** Start a release on a fresh port and wait for its health route; a failed start leaves nothing running. */
  startRelease(projectId: string, releaseId: string, config: DeployConfig, at: { host?: string; port?: number }, signal?: AbortSignal): Promise<RunningApp>;
  /** Move the pointer to `candidate` and settle the leftovers. */
  switchTo(request: ReconcileRequest, candidate: RunningApp, current: ActivePointer | null, safetyCopy: string | null): Promise<void>;
  collectReleases(projectId: string): Promise<void>;
  report(error: unknown, context: string): void;
}

/** The three canary steps over the provider's state. */
export function createCanarySteps(deps: CanaryStepDeps) {
  const { canaries, retiring, apps, files } = deps;

  return {
    /**
     * A canary request: after a live snapshot (the candidate's rollback point) the candidate starts
     * beside the baseline and is recorded; the pointer stays on the baseline. A refused or failed
     * canary leaves the baseline untouched (a failed health check is SVC_HEALTH_CHECK_FAILED).
     */
    async start(request: ReconcileRequest): Promise<void> {
      const projectId = request.operation.projectId;
      const releaseId = request.desired.releaseId!;
      const dir = files.projectDir(projectId);
      const current = files.active(projectId);
      const baseline = apps.get(projectId);
      await deps.gate?.(projectId);
      await retiring.stopUpTo(projectId);
      const releaseDir = await files.stage(request);
      const config = request.artifact!.decoded.config;
      const target = files.migrationTarget(projectId, releaseDir, config);
      const plan = planCanaryStart({
        releaseId,
        pendingMigrations: await precheckMigrations(target),
        baselineReleaseId: current?.releaseId ?? null,
        baselineRunning: baseline !== undefined && !baseline.exited && baseline.releaseId === current?.releaseId && readPendingDeploy(dir) === null,
        staged: canaries.staged(projectId),
      });
      if (plan.kind === 'refuse') throw new SvcError(plan.code, plan.message);
      if (plan.kind === 'keep') return canaries.restamp(projectId, request.desired.generation);
      // Another candidate was staged: it stops (its directory goes at the next collection, not now).
      if (plan.replaceStaged) await canaries.abort(projectId);
      await createSnapshot(target.databasePath, snapshotPathOf(dir, releaseId));
      if (request.signal.aborted) throw new SvcError('SVC_PROVIDER_ABORTED', 'Aborted before the canary candidate started');
      const candidate = await deps.startRelease(projectId, releaseId, config, {}, request.signal);
      canaries.stage(projectId, request.desired.generation, candidate, deps.clock.now());
    },

    /** A request for the staged candidate's release: the pointer moves to the app already serving; the baseline drains. */
    async promote(request: ReconcileRequest): Promise<void> {
      const projectId = request.operation.projectId;
      await deps.gate?.(projectId);
      await retiring.stopUpTo(projectId);
      await files.stage(request);
      const current = files.active(projectId);
      const baseline = apps.get(projectId);
      const candidate = canaries.take(projectId)!;
      if (baseline && !baseline.exited) retiring.retire(projectId, baseline, request.desired.generation);
      try {
        await deps.switchTo(request, candidate, current, null);
      } finally {
        // The pointer names the candidate now; a crash before this line is settled by resume all the same.
        await canaries.forget(projectId);
      }
    },

    /** Any other request: the staged candidate stops and its release is collected; the baseline keeps serving. */
    async abort(projectId: string): Promise<void> {
      await canaries.abort(projectId);
      await deps.collectReleases(projectId).catch((error: unknown) => deps.report(error, `collecting the aborted canary of ${projectId}`));
    },
  };
}

// The one executor of the release pipeline: carries out a plan (release-plan.ts) effect by effect
// with the driver (where apps run), the ingress seam, the release store and the audit log. The deploy,
// its failure undo and rollbacks all run through it; a forward effect that throws stops the plan, the
// undo effects never throw (a failed undo is logged, and a failed restore is added to the reason).
// Projects placed on a runner node use the same executor: their plans keep the artifact, request a
// generation of the node (`deps.placement`) and commit its outcome.
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { atomicWriteFile } from '../core/atomic-write.js';
import { errorCodes, type ErrorCode } from '../core/error-codes/index.js';
import { SvcError } from '../core/errors.js';
import { placeStagedArtifact, type StagedArtifact } from '../artifacts/index.js';
import type { RunningApp, SnapshotFile } from '../../runner/release-driver.js';
import type { ReleaseFailure, ReleaseStep } from './contract.js';
import { databasePathOf, projectLayout, releaseDirOf, snapshotPathOf } from './project-layout.js';
import { auditRollback, commitActivation, commitRollback, markFailed, removeCandidateFiles, type TransactionSubject } from './release-commits.js';
import { checkStartedHealth, givePriorBack, note, quiesce, routeTo, type ReleaseDeps } from './release-deps.js';
import type { CanaryCandidateApp, ReleaseCanaryRun } from './canary-hooks.js';
import { observe } from './release-observer.js';
import type { PipelineEffect } from './release-plan.js';
import type { ReleaseSetState } from './release-state.js';
import { insertSnapshot, releaseConfig, setRunRecord, setStep, type ReleaseRow, type SnapshotRow } from './release-store.js';
import { pruneSnapshots } from './prune-snapshots.js';

/** A restore-data rollback's saved copy of the current data and the marker boot recovery reads. */
export interface SavedData {
  safetyPath: string;
  marker: string;
  saved: boolean;
}

/** One deploy or rollback as the executor works on it: what it is about and what it has done so far. */
export interface ReleaseRun {
  subject: TransactionSubject;
  /** The candidate of a deploy, the target of a rollback. */
  release: ReleaseRow;
  /** The release serving when the run began. */
  prior: ReleaseRow | undefined;
  databasePath: string;
  step: ReleaseStep;
  /** The started, not yet supervised app of `release`. */
  app: RunningApp | null;
  priorStopped: boolean;
  routed: boolean;
  /** A recorded pre-deploy snapshot (what a failure restores). */
  snapshot: SnapshotRow | null;
  /** Blue-green: the snapshot recorded only at activation. */
  liveSnapshot: SnapshotFile | null;
  canary: ReleaseCanaryRun | null;
  /** Migrations pending after verify. */
  pending: number;
  staged?: StagedArtifact;
  /** Set once the run failed (the undo plan reads it). */
  failure?: ReleaseFailure;
  rollback?: { state: ReleaseSetState; restoreData: boolean; restoreFrom: SnapshotRow | undefined; data: SavedData };
  /** A placed project's verified upload, kept for its node, or for a driver that keeps artifacts. */
  kept?: Buffer;
  /** The generation requested of a placed project's node. */
  generation?: number;
  /** A placed canary: its generation and the candidate its node reports. */
  canaryGeneration?: number;
  nodeCandidate?: CanaryCandidateApp;
}

/** A fresh run of `release` for `subject`. */
export function newReleaseRun(deps: ReleaseDeps, subject: TransactionSubject, release: ReleaseRow, prior: ReleaseRow | undefined): ReleaseRun {
  const databasePath = databasePathOf(projectLayout(deps.ctx.config.dataDir, subject.project.id), releaseConfig(release).database.path);
  return {
    subject,
    release,
    prior,
    databasePath,
    step: 'extract',
    app: null,
    priorStopped: false,
    routed: false,
    snapshot: null,
    liveSnapshot: null,
    canary: null,
    pending: 0,
  };
}

/** Run every effect in order; throws what a forward effect threw (the run records how far it got). */
export async function runReleaseEffects(deps: ReleaseDeps, run: ReleaseRun, effects: readonly PipelineEffect[]): Promise<void> {
  for (const effect of effects) await runEffect(deps, run, effect);
}

/** The observer's view of a deploy phase (errors in observers are caught). */
export function reportPhase(deps: ReleaseDeps, run: ReleaseRun, step: ReleaseStep, details: Record<string, unknown> = {}): void {
  const observer = deps.observer;
  if (observer?.onPhase) observe(deps.ctx.logger, () => observer.onPhase!({ id: run.release.id, projectId: run.release.project_id }, step, details));
}

async function runEffect(deps: ReleaseDeps, run: ReleaseRun, effect: PipelineEffect): Promise<void> {
  const { ctx } = deps;
  const { release } = run;
  const projectId = release.project_id;
  const config = releaseConfig(release);
  const layout = projectLayout(ctx.config.dataDir, projectId);
  const migrationTarget = () => ({
    databasePath: run.databasePath,
    migrationsDir: join(releaseDirOf(layout, release.id), config.database.migrations),
    allowUnsafeMigrations: config.database.allowUnsafeMigrations,
    operatorAllowsUnsafe: deps.settings.operatorAllowsUnsafe,
  });
  switch (effect.type) {
    case 'enter':
      run.step = effect.step;
      setStep(ctx, release.id, effect.step);
      note(deps, projectId, release.id, `deploy: ${effect.step}`);
      return reportPhase(deps, run, effect.step);
    case 'progress':
      return reportPhase(deps, run, effect.step, effect.details);
    case 'note':
      return note(deps, projectId, release.id, effect.line);
    case 'failpoint':
      return deps.failpoint(effect.name);
    case 'stage-release': {
      const staged = run.staged;
      if (!staged) throw new SvcError('SVC_INTERNAL', `No staged upload for ${release.id}`);
      // A driver that runs releases from their original bytes keeps them beside the release files.
      const artifact = deps.driver.keepsArtifacts && run.kept ? { artifact: { sha256: release.digest, bytes: run.kept } } : {};
      return deps.driver.stage({ releaseDir: releaseDirOf(layout, release.id), place: (dir) => placeStagedArtifact(staged, dir), ...artifact });
    }
    case 'precheck-migrations':
      // Read-only before the active app stops, so an edited or unsafe history costs no outage.
      run.pending = await deps.driver.runJob({ type: 'precheck', target: migrationTarget() });
      return;
    case 'quiesce':
      run.priorStopped = true;
      return quiesce(deps, projectId);
    case 'snapshot': {
      const snap = await deps.driver.runJob({ type: 'snapshot', databasePath: run.databasePath, snapshotPath: snapshotPathOf(layout, release.id) });
      if (effect.record === 'at-activation') run.liveSnapshot = snap;
      else {
        run.snapshot = insertSnapshot(ctx, { projectId, releaseId: release.id, path: snap.path, sizeBytes: snap.sizeBytes, hadDatabase: snap.hadDatabase });
        note(deps, projectId, release.id, `deploy: snapshot ${snap.sizeBytes} bytes`);
      }
      return reportPhase(deps, run, 'snapshot', { snapshotBytes: snap.sizeBytes, done: true });
    }
    case 'recovery-before-migrate':
      return deps.recovery?.beforeMigrate(run.subject, run.databasePath, release.id);
    case 'migrate': {
      const applied = await deps.driver.runJob({ type: 'migrate', target: migrationTarget(), now: ctx.clock.now() });
      if (applied.length > 0) note(deps, projectId, release.id, `deploy: applied ${applied.join(', ')}`);
      return reportPhase(deps, run, 'migrate', { applied, done: true });
    }
    case 'start-release':
      run.app = await deps.driver.startCandidate(projectId, effect.releaseId, { canary: Boolean(run.canary) });
      // Recorded so a crashed control plane finds and stops it at the next start.
      setRunRecord(ctx, effect.releaseId, run.app.record());
      return;
    case 'health-check':
      return checkStartedHealth(deps, release, startedApp(run));
    case 'recovery-after-healthy':
      return deps.recovery?.afterHealthy(projectId, run.databasePath);
    case 'canary-run':
      return run.canary?.run(run.nodeCandidate ?? startedApp(run), { path: config.health.path });
    case 'route-traffic':
      await routeTo(deps, startedApp(run));
      run.routed = true;
      return;
    case 'commit':
      if (effect.outcome === 'activate') run.snapshot = commitActivation(deps, run.subject, release, run);
      else
        commitRollback(deps, run.subject, {
          target: release,
          fromReleaseId: run.prior?.id ?? null,
          state: rollbackOf(run).state,
          restoreData: rollbackOf(run).restoreData,
          restoredFrom: rollbackOf(run).restoreFrom,
        });
      return;
    case 'serve':
      return deps.driver.serve(startedApp(run));
    case 'settle-canary':
      return run.canary?.settle(run.failure ? { ok: false, code: run.failure.code, message: run.failure.message } : { ok: true });
    case 'prune-snapshots':
      return pruneSnapshots(deps, projectId);
    case 'stop-release':
      await run.app?.stop().catch((e: unknown) => ctx.logger.error({ err: e, projectId }, 'could not stop the failed release'));
      return;
    case 'restore-snapshot':
      if (effect.purpose === 'restore-data')
        return deps.driver.runJob({ type: 'restore-snapshot', snapshotPath: effect.snapshot.path, databasePath: run.databasePath });
      try {
        await deps.driver.runJob({ type: 'restore-snapshot', snapshotPath: effect.snapshot.path, databasePath: run.databasePath });
      } catch (restoreError) {
        ctx.logger.fatal({ err: restoreError, projectId }, 'restoring the pre-deploy snapshot failed');
        if (run.failure) run.failure.message += `; restoring the snapshot failed: ${(restoreError as Error).message}`;
      }
      return;
    case 'save-data': {
      // Keep the current data until the rollback is committed, so a failure (or crash) loses nothing.
      const data = rollbackOf(run).data;
      await deps.driver.runJob({ type: 'snapshot', databasePath: run.databasePath, snapshotPath: data.safetyPath });
      await atomicWriteFile(data.marker, JSON.stringify({ safetyPath: data.safetyPath, databasePath: run.databasePath, releaseId: release.id }), {
        mode: 0o600,
        mkdirs: true,
      });
      data.saved = true;
      return;
    }
    case 'put-data-back':
      return putDataBack(deps, run);
    case 'discard-saved-data': {
      const { restoreFrom, data } = rollbackOf(run);
      if (restoreFrom) await rm(restoreFrom.path, { force: true });
      await rm(data.marker, { force: true });
      await rm(data.safetyPath, { force: true });
      return;
    }
    case 'commit-failure':
      if (effect.outcome === 'deploy') return markFailed(deps, run.subject, release.id, failureOf(run), run.snapshot);
      ctx.db.transaction(() =>
        auditRollback(deps, run.subject, 'rollback.fail', {
          releaseId: release.id,
          restoreData: rollbackOf(run).restoreData,
          code: failureOf(run).code,
          reason: failureOf(run).message.slice(0, 500),
        }),
      )();
      return;
    case 'remove-artifact':
      return removeCandidateFiles(deps, projectId, effect.releaseId, run.snapshot);
    case 'restart-release':
      return givePriorBack(deps, projectId, { releaseId: effect.releaseId, stopped: true, routed: run.routed });
    case 'route-back':
      return givePriorBack(deps, projectId, { releaseId: undefined, stopped: false, routed: true });
    case 'keep-artifact':
      if (!run.kept) throw new SvcError('SVC_INTERNAL', `No kept upload for ${release.id}`);
      return placementOf(deps).keepArtifact(projectId, release.digest, run.kept);
    case 'converge-on-node':
      if (effect.canary) run.canaryGeneration = placementOf(deps).deploy(run.subject, effect.releaseId, undefined, true);
      else run.generation = placementOf(deps).deploy(run.subject, effect.releaseId, effect.rollback ?? undefined);
      return;
    case 'await-node-canary':
      run.nodeCandidate = await awaitNodeCandidate(deps, projectId, run.canaryGeneration);
      return;
    case 'converge-back-on-node':
      try {
        run.generation = placementOf(deps).deploy(run.subject, effect.releaseId);
      } catch (error) {
        ctx.logger.error({ err: error, projectId }, 'could not ask the runner node to abort the canary');
        note(deps, projectId, release.id, `canary: could not ask the runner node to abort the candidate: ${(error as Error).message}`);
      }
      return;
  }
}

/** The candidate of a placed canary once its node reports it listening; its refusal or failure as the node's code. */
async function awaitNodeCandidate(deps: ReleaseDeps, projectId: string, generation: number | undefined): Promise<CanaryCandidateApp> {
  const placement = placementOf(deps);
  if (generation === undefined) throw new SvcError('SVC_INTERNAL', 'No canary generation was requested');
  const shown = await placement.awaitCanary(projectId, generation, placement.waitMs);
  if (shown === null) throw new SvcError('SVC_CANARY_CANDIDATE_LOST', `The runner node did not report the canary candidate within ${placement.waitMs} ms.`);
  if (!shown.ok) throw nodeFailure(shown.code);
  return { host: shown.upstream.host, port: shown.upstream.port, onExit: (listener) => placement.onCanaryGone(projectId, generation, listener) };
}

/** The node's stable code as an error: its own registry entry, or SVC_PROVIDER_FAILED naming an unknown one. */
export function nodeFailure(code: string): SvcError {
  const known = Object.hasOwn(errorCodes, code);
  return new SvcError(known ? (code as ErrorCode) : 'SVC_PROVIDER_FAILED', `The runner node did not run the release: ${code}.`, {
    details: { nodeCode: code },
  });
}

/** A failed restore-data rollback: the saved data goes back (left for boot recovery when that fails). */
async function putDataBack(deps: ReleaseDeps, run: ReleaseRun): Promise<void> {
  const { data } = rollbackOf(run);
  try {
    await deps.driver.runJob({ type: 'restore-snapshot', snapshotPath: data.safetyPath, databasePath: run.databasePath });
    await rm(data.marker, { force: true });
    await rm(data.safetyPath, { force: true });
  } catch (error) {
    // The marker stays: the next start puts the saved data back before the app runs again.
    deps.ctx.logger.fatal({ err: error, dbPath: run.databasePath }, 'could not put the data back after a failed rollback');
  }
}

function placementOf(deps: ReleaseDeps): NonNullable<ReleaseDeps['placement']> {
  if (!deps.placement) throw new SvcError('SVC_INTERNAL', 'No runner-node placement is wired');
  return deps.placement;
}

function startedApp(run: ReleaseRun): RunningApp {
  if (!run.app) throw new SvcError('SVC_INTERNAL', `${run.release.id} was not started`);
  return run.app;
}

function rollbackOf(run: ReleaseRun): NonNullable<ReleaseRun['rollback']> {
  if (!run.rollback) throw new SvcError('SVC_INTERNAL', `${run.release.id} is not a rollback`);
  return run.rollback;
}

function failureOf(run: ReleaseRun): ReleaseFailure {
  return run.failure ?? { step: run.step, code: 'SVC_INTERNAL', message: 'unknown failure' };
}

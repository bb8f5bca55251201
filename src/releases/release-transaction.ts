// The release transaction of spec 000 (steps 4–10), run under the project lock once the upload was
// verified and the candidate row exists. Each step is one small function; any failure runs
// failCandidate: stop the candidate, restore the snapshot, mark it failed, restart the prior release.
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { SvcError, isSvcError } from '../core/errors.js';
import { appendAudit } from '../audit/append-audit.js';
import { discardStagedArtifact, placeStagedArtifact, type StagedArtifact } from '../artifacts/index.js';
import { setProjectRelease } from '../projects/index.js';
import type { RunningApp } from '../../runner/app-runner.js';
import { migrateOffThread } from '../../runner/jobs/migrate-off-thread.js';
import type { ReleaseFailure, ReleaseStep } from './contract.js';
import { precheckMigrations } from '../../runner/jobs/precheck-migrations.js';
import { prepareReleaseDir, removeReleaseDir } from '../../runner/prepare-release-dir.js';
import { createSnapshot, restoreSnapshot, type Snapshot } from '../../runner/jobs/snapshot.js';
import { databasePathOf, projectLayout, releaseDirOf, snapshotPathOf, type ProjectLayout } from './project-layout.js';
import { chooseCutover } from '../../runner/jobs/choose-cutover.js';
import { givePriorBack, note, quiesce, routeTo, servingFacts, startHealthy, type ReleaseCanaryRun, type ReleaseDeps } from './release-deps.js';
import { transition, type ReleaseEvent } from './release-state.js';
import {
  activeReleaseRow,
  getReleaseById,
  insertSnapshot,
  loadReleaseSet,
  markArtifactRemoved,
  markSnapshotRemoved,
  persistReleaseSet,
  releaseConfig,
  setStep,
  type ReleaseRow,
  type SnapshotRow,
} from './release-store.js';
import { pruneSnapshots } from './prune-snapshots.js';
import { observe } from './release-observer.js';

/** The project a transaction runs for and who started it (for audit attribution). */
export interface TransactionSubject {
  project: { id: string; slug: string; organizationId: string };
  actor: { type: 'user' | 'token' | 'github' | 'system'; id: string; name?: string | null };
  /** svc:canary — the upload asked for a canary rollout (`svc deploy --canary`). */
  canaryRequested?: boolean;
}

/** What the steps have done so far (the failure path undoes exactly this). */
interface Progress {
  step: ReleaseStep;
  prior: ReleaseRow | undefined;
  priorStopped: boolean;
  snapshot: SnapshotRow | null;
  app: RunningApp | null;
  /** svc:canary — the canary run of this deploy (the baseline keeps serving; no stop, snapshot or migrations). */
  canary: ReleaseCanaryRun | null;
  /**
   * Blue-green: the snapshot taken while the prior release kept serving. It is recorded only when the
   * candidate activates: before that, the live database (written by the prior release) is the truth
   * and a failure or crash must never restore this copy over it.
   */
  liveSnapshot: Snapshot | null;
  /** The ingress was switched to the candidate. */
  routed?: boolean;
}

/** Run steps 4–10 for a candidate; resolves with the final row (active or failed), never rejects for a deploy failure. */
export async function runReleaseTransaction(deps: ReleaseDeps, subject: TransactionSubject, candidate: ReleaseRow, staged: StagedArtifact): Promise<ReleaseRow> {
  const { project } = subject;
  const layout = projectLayout(deps.ctx.config.dataDir, project.id);
  const p: Progress = { step: 'extract', prior: activeReleaseRow(deps.ctx, project.id), priorStopped: false, snapshot: null, app: null, canary: null, liveSnapshot: null };
  const observed = { id: candidate.id, projectId: project.id };
  const phase = (step: ReleaseStep, details: Record<string, unknown> = {}): void => {
    if (deps.observer?.onPhase) observe(deps.ctx.logger, () => deps.observer!.onPhase!(observed, step, details));
  };
  const enter = (step: ReleaseStep): void => {
    p.step = step;
    setStep(deps.ctx, candidate.id, step);
    note(deps, project.id, candidate.id, `deploy: ${step}`);
    phase(step);
  };
  try {
    enter('extract');
    await extract(deps, layout, candidate, staged);
    deps.failpoint('after-extract');
    enter('verify');
    const pending = await verifyMigrations(deps, layout, candidate);
    p.canary = beginCanary(deps, subject, candidate, p.prior);
    if (p.canary && pending > 0) throw new SvcError('SVC_CANARY_PENDING_MIGRATIONS', `${pending} pending migration(s): a canary needs a code-only deploy while a baseline release is running.`);
    const cutover = chooseCutover({ pendingMigrations: pending, ...servingFacts(deps, project.id, p.prior?.id) });
    if (!p.canary && cutover === 'blue-green') {
      note(deps, project.id, candidate.id, 'deploy: no migrations, so the active release keeps serving until the candidate is healthy');
      enter('snapshot');
      p.liveSnapshot = await createSnapshot(databasePathOf(layout, releaseConfig(candidate).database.path), snapshotPathOf(layout, candidate.id));
      phase('snapshot', { snapshotBytes: p.liveSnapshot.sizeBytes, done: true });
      deps.failpoint('after-snapshot');
    } else if (!p.canary) {
      enter('stop-active');
      if (p.prior) {
        p.priorStopped = true;
        await quiesce(deps, project.id);
      }
      deps.failpoint('after-stop');
      enter('snapshot');
      p.snapshot = await takeSnapshot(deps, layout, candidate);
      phase('snapshot', { snapshotBytes: p.snapshot.size_bytes, done: true });
      deps.failpoint('after-snapshot');
      enter('migrate');
      await deps.recovery?.beforeMigrate(subject, databasePathOf(layout, releaseConfig(candidate).database.path), candidate.id);
      phase('migrate', { applied: await migrate(deps, layout, candidate), done: true });
      deps.failpoint('after-migrate');
    }
    enter('start');
    p.app = await startHealthy(deps, candidate, (app) => {
      p.app = app;
      deps.failpoint('after-start');
      enter('health');
    });
    if (p.canary) {
      // svc:canary — the baseline keeps serving while the candidate takes its stage percentages.
      note(deps, project.id, candidate.id, 'deploy: canary');
      await p.canary.run(p.app, { path: releaseConfig(candidate).health.path });
    } else await deps.recovery?.afterHealthy(project.id, databasePathOf(layout, releaseConfig(candidate).database.path));
    deps.failpoint('after-health');
    enter('activate');
    await activate(deps, subject, candidate, p);
    deps.failpoint('after-activate');
    // After a canary this also stops the drained baseline (supervise replaces the supervised app).
    await deps.supervisor.supervise(p.app);
    p.canary?.settle({ ok: true });
    await pruneSnapshots(deps, project.id);
    note(deps, project.id, candidate.id, 'deploy: active');
  } catch (error) {
    await discardStagedArtifact(staged); // only still there when extraction did not happen
    await failCandidate(deps, subject, candidate, p, error);
    if (p.canary) {
      const failure = failureOf(p.step, error);
      p.canary.settle({ ok: false, code: failure.code, message: failure.message });
    }
  }
  if (deps.observer?.onOutcome) observe(deps.ctx.logger, () => deps.observer!.onOutcome!(observed));
  return getReleaseById(deps.ctx, candidate.id)!;
}

/** Step 4: move the verified, staged files into a fresh, non-active release directory; then make it read-only. */
async function extract(deps: ReleaseDeps, layout: ProjectLayout, candidate: ReleaseRow, staged: StagedArtifact): Promise<void> {
  const dir = releaseDirOf(layout, candidate.id);
  await placeStagedArtifact(staged, dir);
  await prepareReleaseDir({ releaseDir: dir, platformPackageDir: deps.packageDir });
}

/**
 * Check history and safety read-only before the active app stops, so an edited or unsafe history
 * costs no outage. Step 7 checks again inside its write transaction.
 */
async function verifyMigrations(deps: ReleaseDeps, layout: ProjectLayout, candidate: ReleaseRow): Promise<number> {
  const config = releaseConfig(candidate);
  return precheckMigrations({
    migrationsDir: join(releaseDirOf(layout, candidate.id), config.database.migrations),
    databasePath: databasePathOf(layout, config.database.path),
    allowUnsafeMigrations: config.database.allowUnsafeMigrations,
    operatorAllowsUnsafe: deps.settings.operatorAllowsUnsafe,
  });
}

/** svc:canary — the canary run of a deploy with a running baseline (null: direct activation). */
function beginCanary(deps: ReleaseDeps, subject: TransactionSubject, candidate: ReleaseRow, prior: ReleaseRow | undefined): ReleaseCanaryRun | null {
  const projectId = subject.project.id;
  if (!deps.canary || !prior || deps.supervisor.current(projectId)?.releaseId !== prior.id) return null;
  const authority = async (): Promise<boolean> => {
    const holder = await deps.locks.holder(projectId);
    return holder !== null && holder.pid === process.pid && holder.operation === 'deploy';
  };
  return deps.canary.begin({ projectId, releaseId: candidate.id, baselineReleaseId: prior.id, requested: subject.canaryRequested === true, config: releaseConfig(candidate), authority });
}

/** Step 6: consistent backup of the project database; its exact size is recorded. */
async function takeSnapshot(deps: ReleaseDeps, layout: ProjectLayout, candidate: ReleaseRow): Promise<SnapshotRow> {
  const config = releaseConfig(candidate);
  const snap = await createSnapshot(databasePathOf(layout, config.database.path), snapshotPathOf(layout, candidate.id));
  const row = insertSnapshot(deps.ctx, { projectId: candidate.project_id, releaseId: candidate.id, path: snap.path, sizeBytes: snap.sizeBytes, hadDatabase: snap.hadDatabase });
  note(deps, candidate.project_id, candidate.id, `deploy: snapshot ${snap.sizeBytes} bytes`);
  return row;
}

/** Step 7: verify history and apply every pending migration in one immediate transaction. */
async function migrate(deps: ReleaseDeps, layout: ProjectLayout, candidate: ReleaseRow): Promise<string[]> {
  const config = releaseConfig(candidate);
  const result = await migrateOffThread({
    databasePath: databasePathOf(layout, config.database.path),
    migrationsDir: join(releaseDirOf(layout, candidate.id), config.database.migrations),
    allowUnsafeMigrations: config.database.allowUnsafeMigrations,
    operatorAllowsUnsafe: deps.settings.operatorAllowsUnsafe,
    clock: deps.ctx.clock,
  });
  if (result.applied.length > 0) note(deps, candidate.project_id, candidate.id, `deploy: applied ${result.applied.join(', ')}`);
  return [...result.applied];
}

/** Step 10: cut traffic over, then commit active (prior → inactive) with its audit event in one transaction. */
async function activate(deps: ReleaseDeps, subject: TransactionSubject, candidate: ReleaseRow, p: Progress): Promise<void> {
  await routeTo(deps, p.app!);
  p.routed = true;
  const { ctx } = deps;
  const live = p.liveSnapshot;
  // Set only once committed: a rolled-back recording must leave nothing for the failure path to restore.
  p.snapshot = ctx.db
    .transaction(() => {
      const row = live ? insertSnapshot(ctx, { projectId: candidate.project_id, releaseId: candidate.id, path: live.path, sizeBytes: live.sizeBytes, hadDatabase: live.hadDatabase }) : p.snapshot;
      const snapshot = row ? { path: row.path, sizeBytes: row.size_bytes } : null;
      const result = transition(loadReleaseSet(ctx, subject.project.id, subject.project.slug), { type: 'activate', releaseId: candidate.id, snapshot });
      persistReleaseSet(ctx, subject.project.id, result.state, { activated: candidate.id });
      setProjectRelease(ctx, subject.project.id, candidate.id, 'active');
      appendAudit(ctx, {
        kind: 'release.activate',
        organizationId: subject.project.organizationId,
        projectId: subject.project.id,
        actor: subject.actor,
        metadata: { releaseId: candidate.id, digest: candidate.digest, previousReleaseId: p.prior?.id ?? null, snapshotBytes: snapshot?.sizeBytes ?? null },
      });
      return row;
    })
    .immediate();
}

const stateMachineStep: Record<ReleaseStep, Extract<ReleaseEvent, { type: 'fail' }>['step']> = {
  verify: 'migration',
  extract: 'startup',
  'stop-active': 'startup',
  snapshot: 'backup',
  migrate: 'migration',
  start: 'startup',
  health: 'health',
  activate: 'startup',
  recovery: 'startup',
};

/** The stored reason of a failure: step, stable code, message. */
export function failureOf(step: ReleaseStep, error: unknown): ReleaseFailure {
  return { step, code: isSvcError(error) ? error.code : 'SVC_INTERNAL', message: error instanceof Error ? error.message : String(error) };
}

/**
 * Undo what the steps did, in order: stop the candidate, restore the snapshot, mark the candidate
 * failed (audited) in one transaction, remove its files, then restart the prior release.
 */
async function failCandidate(deps: ReleaseDeps, subject: TransactionSubject, candidate: ReleaseRow, p: Progress, error: unknown): Promise<void> {
  const { ctx } = deps;
  const projectId = subject.project.id;
  const failure = failureOf(p.step, error);
  if (!isSvcError(error)) ctx.logger.error({ err: error, projectId, releaseId: candidate.id }, 'release transaction failed');
  note(deps, projectId, candidate.id, `deploy failed at ${p.step}: ${failure.code}: ${failure.message}`);
  if (p.app) await p.app.stop().catch((e: unknown) => ctx.logger.error({ err: e }, 'could not stop the failed candidate'));
  if (p.snapshot) {
    try {
      await restoreSnapshot(p.snapshot.path, databasePathOf(projectLayout(ctx.config.dataDir, projectId), releaseConfig(candidate).database.path));
    } catch (restoreError) {
      ctx.logger.fatal({ err: restoreError, projectId }, 'restoring the pre-deploy snapshot failed');
      failure.message += `; restoring the snapshot failed: ${(restoreError as Error).message}`;
    }
  }
  deps.failpoint('after-fail-restore');
  markFailed(deps, subject, candidate.id, failure, p.snapshot);
  await removeCandidateFiles(deps, projectId, candidate.id, p.snapshot);
  await givePriorBack(deps, projectId, { releaseId: p.prior?.id, stopped: p.priorStopped, routed: p.routed === true });
}

/** Commit the failed state with its audit event (also used by boot recovery). */
export function markFailed(deps: ReleaseDeps, subject: TransactionSubject, releaseId: string, failure: ReleaseFailure, snapshot: SnapshotRow | null): void {
  const { ctx } = deps;
  const projectId = subject.project.id;
  ctx.db
    .transaction(() => {
      const snap = snapshot ? { path: snapshot.path, sizeBytes: snapshot.size_bytes } : null;
      const result = transition(loadReleaseSet(ctx, projectId, subject.project.slug), { type: 'fail', releaseId, step: stateMachineStep[failure.step], snapshot: snap, reason: failure.message });
      persistReleaseSet(ctx, projectId, result.state, { failed: { releaseId, failure } });
      const active = activeReleaseRow(ctx, projectId);
      setProjectRelease(ctx, projectId, active?.id ?? null, active ? 'active' : 'failed');
      appendAudit(ctx, {
        kind: 'release.fail',
        organizationId: subject.project.organizationId,
        projectId,
        actor: subject.actor,
        metadata: { releaseId, step: failure.step, code: failure.code, reason: failure.message.slice(0, 500), activeReleaseId: active?.id ?? null },
      });
    })
    .immediate();
}

/** A failed candidate keeps its row and audit history; its files and snapshot go. */
export async function removeCandidateFiles(deps: ReleaseDeps, projectId: string, releaseId: string, snapshot: SnapshotRow | null): Promise<void> {
  const layout = projectLayout(deps.ctx.config.dataDir, projectId);
  try {
    await removeReleaseDir(releaseDirOf(layout, releaseId));
    markArtifactRemoved(deps.ctx, releaseId);
    await rm(snapshotPathOf(layout, releaseId), { force: true });
    if (snapshot) markSnapshotRemoved(deps.ctx, snapshot.id);
  } catch (error) {
    deps.ctx.logger.warn({ err: error, projectId, releaseId }, 'could not remove the files of a failed release');
  }
}

// `svc rollback <release-id> [--restore-data --confirm="restore <project>"]`: under the
// project lock, the state machine validates the request. A code-only rollback to a release whose
// migrations the database already holds is blue-green (chooseCutover, as for a code-only deploy): the
// target starts beside the active app, which serves until the target is healthy. Otherwise (restore-data,
// a schema the target lacks, a journaled database, nothing running) the active app stops first with the
// project's requests held; with restore-data the database is restored from the active release's
// pre-deploy snapshot. Only a healthy, routed target is marked active; a failure puts the previous app
// (and data) back.
import { join } from 'node:path';
import type { SvcError } from '../core/errors.js';
import { chooseCutover } from '../../runner/jobs/choose-cutover.js';
import { projectLayout, releaseDirOf } from './project-layout.js';
import { servingFacts, type ReleaseDeps } from './release-deps.js';
import { planRollback, planRollbackFailure } from './release-plan.js';
import { findSnapshot, getRelease, releaseConfig, type ReleaseRow } from './release-store.js';
import { newReleaseRun, runReleaseEffects, type ReleaseRun } from './run-release-effects.js';
import { observe, type ObservedRollback } from './release-observer.js';
import { awaitNodeRollback, requestNodeRollback } from './node-release-driver.js';
import { decideRollback, type RollbackInput, type RollbackResult } from './rollback-decision.js';

export type { RollbackInput, RollbackResult } from './rollback-decision.js';

/** File that marks a data-restoring rollback in progress; boot recovery puts the saved data back. */
export function rollbackMarkerPath(dataDir: string, projectId: string): string {
  return join(projectLayout(dataDir, projectId).tmpDir, 'rollback-in-progress.json');
}

/** A rollback validated and started under the project lock; `done` settles when it ended. */
export interface StartedRollback {
  target: ReleaseRow;
  previousReleaseId: string | null;
  restoredData: boolean;
  done: Promise<RollbackResult>;
}

/** Roll a project back to an inactive release (code only, or with the database restored). */
export async function rollbackRelease(deps: ReleaseDeps, input: RollbackInput): Promise<RollbackResult> {
  const projectId = input.project.id;
  if (deps.placement?.isPlaced(projectId)) {
    // A placed project's rollback is validated and requested under the lock (a generation of the target
    // carrying the intent); the node's outcome is awaited (bounded) and committed after it.
    const requested = await deps.locks.withLock(projectId, 'rollback', () => requestNodeRollback(deps, input), { waitMs: deps.settings.lockWaitMs });
    return awaitNodeRollback(deps, input, requested);
  }
  return (await startRollback(deps, input)).done;
}

/**
 * Take the lock, validate the request and report the start; the steps then run in `done`, which
 * releases the lock. A refused request (phrase, unknown release, lock busy) throws here. Not for a
 * placed project (rollbackRelease sends those to the node).
 */
export async function startRollback(deps: ReleaseDeps, input: RollbackInput): Promise<StartedRollback> {
  const { ctx } = deps;
  const projectId = input.project.id;
  const lock = await deps.locks.acquire(projectId, 'rollback', { waitMs: deps.settings.lockWaitMs });
  let started: Omit<StartedRollback, 'done'> & { run: ReleaseRun; active: ReleaseRow | undefined; effects: Parameters<typeof planRollback>[0] };
  try {
    const { target, active, decision } = decideRollback(deps, input);
    const run = newReleaseRun(deps, input, target, active);
    const restoreFrom = input.restoreData ? findSnapshot(ctx, active?.restore_snapshot_id ?? null) : undefined;
    const tmpDir = projectLayout(ctx.config.dataDir, projectId).tmpDir;
    run.rollback = {
      state: decision.state,
      restoreData: input.restoreData,
      restoreFrom,
      data: { safetyPath: join(tmpDir, `before-rollback-${target.id}.db`), marker: rollbackMarkerPath(ctx.config.dataDir, projectId), saved: false },
    };
    started = { target, active, run, effects: decision.effects, previousReleaseId: active?.id ?? null, restoredData: Boolean(restoreFrom) };
  } catch (error) {
    await lock.release();
    throw error;
  }
  const { target, active, run } = started;
  const report = (phase: ObservedRollback['phase'], error?: unknown): void => {
    if (!deps.observer?.onRollback) return;
    const failure = error === undefined ? {} : { error: { code: (error as SvcError).code ?? 'SVC_INTERNAL', message: (error as Error).message } };
    observe(ctx.logger, () =>
      deps.observer!.onRollback!({
        phase,
        projectId,
        releaseId: target.id,
        fromReleaseId: active?.id ?? null,
        restoreData: input.restoreData,
        actor: input.actor,
        ...failure,
      }),
    );
  };
  report('start');
  const done = (async (): Promise<RollbackResult> => {
    let failed: { error: unknown } | undefined;
    try {
      try {
        const restoreFrom = run.rollback?.restoreFrom;
        const cutover = chooseCutover({
          pendingMigrations: restoreFrom ? 0 : await unappliedMigrationsOf(deps, target, run.databasePath),
          ...servingFacts(deps, projectId, active?.id),
          restoresData: restoreFrom !== undefined,
        });
        const line = `rollback to ${target.id}${input.restoreData ? ' with data restore' : ''}${cutover === 'blue-green' ? ': schema compatible, the active release keeps serving until the target is healthy' : ''}`;
        await runReleaseEffects(deps, run, planRollback(started.effects, { cutover, line }));
      } catch (error) {
        failed = { error };
        await undoRollback(deps, run, error);
        throw error;
      } finally {
        await lock.release();
      }
    } finally {
      // Once the lock is free (a client acting on the end finds the project unlocked), and even when
      // putting the prior release back failed too: followers wait for this end.
      report(failed ? 'fail' : 'complete', failed?.error);
    }
    return { release: getRelease(ctx, projectId, target.id), previousReleaseId: started.previousReleaseId, restoredData: started.restoredData };
  })();
  return { target, previousReleaseId: started.previousReleaseId, restoredData: started.restoredData, done };
}

/** Stop the target, put the saved data back, audit the failure, give the prior release back. */
async function undoRollback(deps: ReleaseDeps, run: ReleaseRun, error: unknown): Promise<void> {
  run.failure = { step: run.step, code: (error as SvcError).code ?? 'SVC_INTERNAL', message: (error as Error).message };
  const facts = { started: run.app !== null, priorStopped: run.priorStopped, routed: run.routed, priorId: run.prior?.id ?? null };
  await runReleaseEffects(
    deps,
    run,
    planRollbackFailure({ ...facts, savedData: run.rollback?.data.saved === true, releaseId: run.release.id, reason: run.failure.message }),
  );
}

/**
 * The target's migrations the database lacks as they are (0: its schema is there, a code-only switch).
 * Unreadable history counts as incompatible, so the rollback stops first as it always could.
 */
async function unappliedMigrationsOf(deps: ReleaseDeps, target: ReleaseRow, databasePath: string): Promise<number> {
  const layout = projectLayout(deps.ctx.config.dataDir, target.project_id);
  try {
    return await deps.driver.runJob({
      type: 'unapplied-migrations',
      migrationsDir: join(releaseDirOf(layout, target.id), releaseConfig(target).database.migrations),
      databasePath,
    });
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

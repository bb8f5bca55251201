// The release transaction (steps 4–10 of docs/releases.md), run under the project lock once the upload was
// verified and the candidate row exists. It decides (cutover, canary) and plans (release-plan.ts);
// run-release-effects.ts carries the plan out. Any failure runs the planned undo: stop the candidate,
// restore the snapshot, mark it failed, remove its files, give the prior release back.
import { SvcError, isSvcError } from '../core/errors.js';
import { discardStagedArtifact, type StagedArtifact } from '../artifacts/index.js';
import { chooseCutover } from '../../runner/jobs/choose-cutover.js';
import type { ReleaseFailure, ReleaseStep } from './contract.js';
import { failEvent, type TransactionSubject } from './release-commits.js';
import { note, servingFacts, type ReleaseDeps } from './release-deps.js';
import type { ReleaseCanaryRun } from './canary-hooks.js';
import { observe } from './release-observer.js';
import { OUTPUT_TAIL_LINES, outputTail } from './output-tail.js';
import { planDeploy, planDeployFailure, planDeployStart } from './release-plan.js';
import { transition, type ReleaseEffect } from './release-state.js';
import { activeReleaseRow, getReleaseById, loadReleaseSet, releaseConfig, type ReleaseRow } from './release-store.js';
import { newReleaseRun, runReleaseEffects, type ReleaseRun } from './run-release-effects.js';

export type { TransactionSubject } from './release-commits.js';

/** Run steps 4–10 for a candidate; resolves with the final row (active or failed), never rejects for a deploy failure. */
export async function runReleaseTransaction(
  deps: ReleaseDeps,
  subject: TransactionSubject,
  candidate: ReleaseRow,
  staged: StagedArtifact,
  kept?: Buffer,
): Promise<ReleaseRow> {
  const { project } = subject;
  const run = newReleaseRun(deps, subject, candidate, activeReleaseRow(deps.ctx, project.id));
  run.staged = staged;
  if (kept) run.kept = kept; // the original upload, for a driver that keeps artifacts
  try {
    await runReleaseEffects(deps, run, planDeployStart(candidate.id));
    run.canary = beginCanary(deps, subject, candidate, run.prior, (projectId) => deps.driver.current(projectId)?.releaseId);
    if (run.canary && run.pending > 0)
      throw new SvcError(
        'SVC_CANARY_PENDING_MIGRATIONS',
        `${run.pending} pending migration(s): a canary needs a code-only deploy while a baseline release is running.`,
      );
    const cutover = chooseCutover({ pendingMigrations: run.pending, ...servingFacts(deps, project.id, run.prior?.id) });
    // A dry run of the state machine: it refuses an invalid activation before anything stops.
    const activation = transition(loadReleaseSet(deps.ctx, project.id, project.slug), { type: 'activate', releaseId: candidate.id, snapshot: null }).effects;
    await runReleaseEffects(
      deps,
      run,
      planDeploy({ releaseId: candidate.id, priorId: run.prior?.id ?? null, cutover, canary: run.canary !== null, activation }),
    );
  } catch (error) {
    await discardStagedArtifact(staged); // only still there when extraction did not happen
    await failCandidate(deps, run, error);
  }
  if (deps.observer?.onOutcome) observe(deps.ctx.logger, () => deps.observer!.onOutcome!({ id: candidate.id, projectId: project.id }));
  return getReleaseById(deps.ctx, candidate.id)!;
}

/**
 * The canary run of a deploy whose baseline still serves (null: direct activation). `served` names
 * the release that serves the project now: the local driver's running app, or a node's routed one.
 */
export function beginCanary(
  deps: ReleaseDeps,
  subject: TransactionSubject,
  candidate: ReleaseRow,
  prior: ReleaseRow | undefined,
  served: (projectId: string) => string | null | undefined,
): ReleaseCanaryRun | null {
  const projectId = subject.project.id;
  if (!deps.canary || !prior || served(projectId) !== prior.id) return null;
  const authority = async (): Promise<boolean> => {
    const holder = await deps.locks.holder(projectId);
    return holder !== null && holder.pid === process.pid && holder.operation === 'deploy';
  };
  return deps.canary.begin({
    projectId,
    releaseId: candidate.id,
    baselineReleaseId: prior.id,
    requested: subject.canaryRequested === true,
    config: releaseConfig(candidate),
    authority,
  });
}

/** The stored reason of a failure: step, stable code, message. */
export function failureOf(step: ReleaseStep, error: unknown): ReleaseFailure {
  return { step, code: isSvcError(error) ? error.code : 'SVC_INTERNAL', message: error instanceof Error ? error.message : String(error) };
}

/** The release's last output lines (read before the failure line is written); empty when none or unreadable. */
function tailOf(deps: ReleaseDeps, projectId: string, releaseId: string): { outputTail?: string[] } {
  try {
    const entries = deps.driver.logs.read(projectId, { releaseId, limit: OUTPUT_TAIL_LINES });
    const tail = outputTail(entries.map((e) => e.line));
    return tail.length ? { outputTail: tail } : {};
  } catch (error) {
    deps.ctx.logger.warn({ err: error, projectId, releaseId }, 'could not read the output tail of a failed release');
    return {};
  }
}

/** Plan the undo from the state machine's `fail` effects and what the run had done, then run it. */
async function failCandidate(deps: ReleaseDeps, run: ReleaseRun, error: unknown): Promise<void> {
  const { ctx } = deps;
  const { release } = run;
  const projectId = release.project_id;
  run.failure = { ...failureOf(run.step, error), ...tailOf(deps, projectId, release.id) };
  if (!isSvcError(error)) ctx.logger.error({ err: error, projectId, releaseId: release.id }, 'release transaction failed');
  note(deps, projectId, release.id, `deploy failed at ${run.step}: ${run.failure.code}: ${run.failure.message}`);
  const facts = { started: run.app !== null, priorStopped: run.priorStopped, routed: run.routed, priorId: run.prior?.id ?? null };
  await runReleaseEffects(deps, run, planDeployFailure(failEffects(deps, run), facts, release.id, run.canary !== null));
}

/**
 * The state machine's `fail` effects for this run. A candidate the state machine can no longer fail
 * (it was committed) still gets its app stopped and its data restored; the commit then refuses, as before.
 */
function failEffects(deps: ReleaseDeps, run: ReleaseRun): ReleaseEffect[] {
  const { project } = run.subject;
  const event = failEvent(run.release.id, run.failure!, run.snapshot);
  try {
    return transition(loadReleaseSet(deps.ctx, project.id, project.slug), event).effects;
  } catch {
    return [{ type: 'stop-release', releaseId: run.release.id }, ...(event.snapshot ? [{ type: 'restore-snapshot' as const, snapshot: event.snapshot }] : [])];
  }
}

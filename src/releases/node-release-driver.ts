// Deploys and rollbacks of projects placed on a runner node, through the same planner and
// executor as local ones. Under the project lock the pipeline keeps the artifact and requests a running
// generation (`deps.placement`, the node driver); the node converges it and reports asynchronously.
// The outcome is committed by `settleNodeGeneration` with the same commit effects as local releases,
// in the pipeline's own SQLite transactions: by the deploy or rollback itself when the node answers
// within the wait bound, else when src/nodes reports the settled operation (after its transaction).
import type { SvcError } from '../core/errors.js';
import { findProject } from '../projects/index.js';
import type { TransactionSubject } from './release-commits.js';
import type { ReleaseDeps } from './release-deps.js';
import type { NodeOutcome, NodeRollbackIntent } from './placement-hooks.js';
import { observe } from './release-observer.js';
import {
  nodeFailureStep,
  planNodeCanaryDeploy,
  planNodeCanaryFailure,
  planNodeDeploy,
  planNodeDeployFailure,
  planNodeRollback,
  planNodeSettle,
} from './release-plan.js';
import type { ReleaseUpstream } from './release-routing.js';
import { restorePhrase, transition } from './release-state.js';
import { activeReleaseRow, findRelease, getRelease, listActiveReleases, listCandidates, loadReleaseSet, type ReleaseRow } from './release-store.js';
import { beginCanary, failureOf } from './release-transaction.js';
import { newReleaseRun, nodeFailure, runReleaseEffects } from './run-release-effects.js';
import { decideRollback, type RollbackInput, type RollbackResult } from './rollback-decision.js';

const nodeActor = (projectId: string) => ({ type: 'system' as const, id: 'svc-nodes', name: `runner node of ${projectId}` });

/**
 * Under the project lock: keep the candidate's bytes for the node and request its generation. Returns
 * the generation, or null when the deploy failed before its node got it (the candidate is then failed).
 */
export async function requestNodeDeploy(deps: ReleaseDeps, subject: TransactionSubject, candidate: ReleaseRow, kept: Buffer): Promise<number | null> {
  const run = newReleaseRun(deps, subject, candidate, activeReleaseRow(deps.ctx, subject.project.id));
  run.kept = kept;
  try {
    // A canary: the same decision as a local deploy's, with the baseline the node's reports route.
    run.canary = beginCanary(deps, subject, candidate, run.prior, (projectId) => deps.placement?.routedRelease(projectId));
    await runReleaseEffects(deps, run, run.canary ? planNodeCanaryDeploy(candidate.id) : planNodeDeploy(candidate.id));
    if (run.canary) deps.nodeSettles.keepCanary(candidate.id, run.canary);
    return run.generation ?? null;
  } catch (error) {
    run.failure = failureOf(run.step, error);
    const reason = `${run.failure.code}: ${run.failure.message}`;
    // A canary the node got is aborted by an ordinary generation of the baseline's release.
    const plan = run.canary
      ? planNodeCanaryFailure(reason, run.canaryGeneration !== undefined ? (run.prior?.id ?? null) : null)
      : planNodeDeployFailure(reason);
    await runReleaseEffects(deps, run, plan).catch((e: unknown) => deps.ctx.logger.error({ err: e, releaseId: candidate.id }, 'could not fail a node release'));
    if (deps.observer?.onOutcome) observe(deps.ctx.logger, () => deps.observer!.onOutcome!({ id: candidate.id, projectId: candidate.project_id }));
    return null;
  }
}

/**
 * Under the project lock: the state machine validates the rollback exactly as for a local project (the
 * snapshot is the node's, so none is required here) and the target's start becomes a generation
 * carrying the intent. Returns the generation and the release that was active.
 */
export async function requestNodeRollback(deps: ReleaseDeps, input: RollbackInput): Promise<{ generation: number; active: ReleaseRow | undefined }> {
  const projectId = input.project.id;
  const { target, active, decision } = decideRollback(deps, input, { dataOnNode: true });
  const rollback: NodeRollbackIntent = { restoreData: input.restoreData, fromReleaseId: active?.id ?? null };
  const run = newReleaseRun(deps, input, target, active);
  reportRollback(deps, 'start', { projectId, releaseId: target.id, rollback, actor: input.actor });
  try {
    await runReleaseEffects(
      deps,
      run,
      planNodeRollback(decision.effects, { line: `rollback to ${target.id}${input.restoreData ? ' with data restore' : ''} on the runner node`, rollback }),
    );
  } catch (error) {
    reportRollback(deps, 'fail', { projectId, releaseId: target.id, rollback, actor: input.actor }, error);
    throw error;
  }
  return { generation: run.generation!, active };
}

/**
 * A rollback's answer: waits (up to the node wait) for the node; observed → the target is active; a
 * refusal or failure → that stable code as the error; no answer in time → the target as it stands.
 */
export async function awaitNodeRollback(
  deps: ReleaseDeps,
  input: RollbackInput,
  requested: { generation: number; active: ReleaseRow | undefined },
): Promise<RollbackResult> {
  const placement = deps.placement!;
  const outcome = await placement.awaitGeneration(input.project.id, requested.generation, placement.waitMs);
  if (outcome) await onNodeSettled(deps, { projectId: input.project.id, generation: requested.generation });
  if (outcome && !outcome.ok) throw nodeFailure(outcome.code);
  const release = getRelease(deps.ctx, input.project.id, input.releaseId);
  return { release, previousReleaseId: requested.active?.id ?? null, restoredData: input.restoreData && release.status === 'active' };
}

/**
 * Commit a node's outcome of a running generation through the executor: a deploy's candidate activates
 * or fails with the node's code (step from `nodeFailureStep`); an observed rollback commits as the
 * state machine decides now, a failed one is audited. A release already settled (or changed since) is
 * left alone; returns the outcome (null while the node works on it).
 */
export function settleNodeGeneration(deps: ReleaseDeps, projectId: string, generation: number): Promise<NodeOutcome | null> {
  return deps.nodeSettles.once(`${projectId}\u0000${generation}`, async () => {
    const g = deps.placement?.generation(projectId, generation);
    const project = findProject(deps.ctx, projectId);
    if (!g?.outcome || !project) return g?.outcome ?? null;
    const row = findRelease(deps.ctx, projectId, g.releaseId);
    const subject: TransactionSubject = {
      project: { id: project.id, slug: project.slug, organizationId: project.organization_id },
      actor: nodeActor(project.id),
    };
    const active = activeReleaseRow(deps.ctx, projectId);
    const outcome = g.outcome;
    // A canary's generation only stages its candidate: its deploy commits with the promotion's (or fails).
    if (!row || g.canary) return outcome;
    const run = newReleaseRun(deps, subject, row, active);
    if (!outcome.ok) run.failure = { step: nodeFailureStep(outcome.code), code: outcome.code, message: `The runner node reported ${outcome.code}.` };
    // An operator's running generation of an inactive release (POST …/generations) is a code-only rollback to it.
    const rerun = outcome.ok && g.rollback === null && row.status === 'inactive' && deps.placement?.newestGeneration(projectId)?.generation === generation;
    if (g.rollback === null && !rerun) {
      if (row.status !== 'candidate') return outcome;
      run.canary = deps.nodeSettles.takeCanary(row.id);
      await runReleaseEffects(deps, run, planNodeSettle('deploy', outcome, run.canary !== null));
      if (deps.observer?.onOutcome) observe(deps.ctx.logger, () => deps.observer!.onOutcome!({ id: row.id, projectId }));
      return outcome;
    }
    const intent = g.rollback ?? { restoreData: false, fromReleaseId: active?.id ?? null };
    const set = loadReleaseSet(deps.ctx, projectId, project.slug);
    if (outcome.ok) {
      // Only the rollback that was asked for commits: a release deployed or rolled back since wins.
      if (row.status !== 'inactive' || (active?.id ?? null) !== intent.fromReleaseId) return outcome;
      const decided = transition(set, {
        type: 'rollback',
        releaseId: row.id,
        restoreData: intent.restoreData,
        confirmation: restorePhrase(project.slug),
        canRollback: true,
        dataOnNode: true,
      });
      run.rollback = { state: decided.state, restoreData: intent.restoreData, restoreFrom: undefined, data: { safetyPath: '', marker: '', saved: false } };
    } else {
      run.rollback = { state: set, restoreData: intent.restoreData, restoreFrom: undefined, data: { safetyPath: '', marker: '', saved: false } };
    }
    await runReleaseEffects(deps, run, planNodeSettle('rollback', outcome));
    reportRollback(
      deps,
      outcome.ok ? 'complete' : 'fail',
      { projectId, releaseId: row.id, rollback: intent, actor: subject.actor },
      outcome.ok ? undefined : nodeFailure(outcome.code),
    );
    return outcome;
  });
}

/** The listener's entry: a generation settled on the node side (its transaction has ended). Never throws. */
export function onNodeSettled(deps: ReleaseDeps, input: { projectId: string; generation: number }): Promise<void> {
  return settleNodeGeneration(deps, input.projectId, input.generation).then(
    () => undefined,
    (error: unknown) => deps.ctx.logger.error({ err: error, ...input }, 'could not settle a runner-node release'),
  );
}

/**
 * Boot: commit what nodes reported while the control plane was down or before it committed (a crash
 * between the node's report and the pipeline's commit). A candidate whose generation was never
 * requested (a crash in between) fails as interrupted; one its node still works on is left to it.
 */
export async function settlePlacedReleases(deps: ReleaseDeps): Promise<void> {
  const placement = deps.placement;
  if (!placement) return;
  for (const candidate of listCandidates(deps.ctx).filter((r) => placement.isPlaced(r.project_id) && !placement.awaitingNode(r.id))) {
    const g = placement.newestGeneration(candidate.project_id, candidate.id);
    if (g && !g.canary) await onNodeSettled(deps, { projectId: candidate.project_id, generation: g.generation });
    else await failInterrupted(deps, candidate, g !== null);
  }
  for (const active of listActiveReleases(deps.ctx).filter((r) => placement.isPlaced(r.project_id))) {
    const newest = placement.newestGeneration(active.project_id);
    if (newest?.rollback && newest.outcome?.ok && newest.releaseId !== active.id)
      await onNodeSettled(deps, { projectId: active.project_id, generation: newest.generation });
  }
}

async function failInterrupted(deps: ReleaseDeps, candidate: ReleaseRow, canary: boolean): Promise<void> {
  const project = findProject(deps.ctx, candidate.project_id);
  if (!project) return;
  const subject: TransactionSubject = {
    project: { id: project.id, slug: project.slug, organizationId: project.organization_id },
    actor: nodeActor(project.id),
  };
  const run = newReleaseRun(deps, subject, candidate, activeReleaseRow(deps.ctx, project.id));
  const step = candidate.step ?? 'recovery';
  if (canary) {
    // A canary whose control plane stopped: the node aborts the candidate, the baseline stays (as for local canaries).
    run.failure = { step, code: 'SVC_RELEASE_INTERRUPTED', message: 'The control plane stopped during the canary; the prior release was retained.' };
    await runReleaseEffects(deps, run, planNodeCanaryFailure(run.failure.message, run.prior?.id ?? null));
    return;
  }
  run.failure = {
    step,
    code: 'SVC_RELEASE_INTERRUPTED',
    message: `The control plane stopped during step "${step}" before the runner node was asked to run it.`,
  };
  await runReleaseEffects(deps, run, planNodeDeployFailure(run.failure.message));
}

function reportRollback(
  deps: ReleaseDeps,
  phase: 'start' | 'complete' | 'fail',
  e: { projectId: string; releaseId: string; rollback: NodeRollbackIntent; actor: TransactionSubject['actor'] },
  error?: unknown,
): void {
  if (!deps.observer?.onRollback) return;
  const failure = error === undefined ? {} : { error: { code: (error as SvcError).code ?? 'SVC_INTERNAL', message: (error as Error).message } };
  observe(deps.ctx.logger, () =>
    deps.observer!.onRollback!({
      phase,
      projectId: e.projectId,
      releaseId: e.releaseId,
      fromReleaseId: e.rollback.fromReleaseId,
      restoreData: e.rollback.restoreData,
      actor: e.actor,
      ...failure,
    }),
  );
}

/**
 * Route a placed project's hosts to where its node says the release listens (null: unroute), or with
 * `hold` take it out of rotation holding its new requests (up to SVC_HOLD_REQUESTS_MS) while the node
 * runs a stop-first cutover; the next route ends the hold. The ingress checks an address accepts
 * connections first and leaves the route unchanged when it does not. Either way the previous target
 * drains (bounded) before this resolves: the node stops a replaced app only after that answer.
 */
export async function routeNodeRelease(
  deps: ReleaseDeps,
  input: { projectId: string; releaseId: string | null; upstream: ReleaseUpstream | null; hold?: boolean },
): Promise<void> {
  const previous =
    input.hold && input.upstream === null
      ? await deps.routing.hold(input.projectId, deps.settings.holdMs)
      : await deps.routing.switchUpstream(input.projectId, input.upstream, input.releaseId);
  await deps.routing.drain(previous, deps.settings.drainTimeoutMs);
}

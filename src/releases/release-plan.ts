// The release pipeline as data: pure functions that turn a deploy, a failed deploy or a rollback into
// the ordered effects run-release-effects.ts carries out. The state machine (release-state.ts) says
// what must happen (stop, restore, start, health-check, route, audit); the plan adds how this run does
// it (cutover, canary, what the failed run had already done) and where crash tests may cut it short.
import type { Cutover } from '../../runner/jobs/choose-cutover.js';
import type { ReleaseStep } from './contract.js';
import type { FailpointName } from './failpoint.js';
import type { NodeOutcome, NodeRollbackIntent } from './placement-hooks.js';
import type { ReleaseEffect, SnapshotRef } from './release-state.js';

/** One thing the effect executor does. */
export type PipelineEffect =
  /** The deploy reaches a step: stored on the candidate, logged, reported to observers. */
  | { type: 'enter'; step: ReleaseStep }
  /** A rollback reaches a step of its target: reported to observers only (the target is no candidate; its row keeps no step). */
  | { type: 'progress'; step: ReleaseStep; details?: Record<string, unknown> }
  | { type: 'note'; line: string }
  | { type: 'failpoint'; name: FailpointName }
  /** Place the verified upload as the candidate's read-only release files. */
  | { type: 'stage-release'; releaseId: string }
  /** Read-only migration check before anything stops. */
  | { type: 'precheck-migrations'; releaseId: string }
  /** Hold the project's requests, drain them, stop its serving app. */
  | { type: 'quiesce'; releaseId: string }
  /** Back up the database; `now` records it at once (stop-first), `at-activation` only when the candidate activates (blue-green). */
  | { type: 'snapshot'; releaseId: string; record: 'now' | 'at-activation' }
  | { type: 'recovery-before-migrate'; releaseId: string }
  | { type: 'migrate'; releaseId: string }
  /** Start the release beside whatever serves (not supervised, not routed). */
  | { type: 'start-release'; releaseId: string }
  | { type: 'health-check'; releaseId: string }
  | { type: 'recovery-after-healthy'; releaseId: string }
  | { type: 'canary-run'; releaseId: string }
  | { type: 'route-traffic'; releaseId: string }
  /** The one SQLite transaction that makes the release active, with its audit event. */
  | { type: 'commit'; outcome: 'activate' | 'rollback' }
  /** Hand the started app to supervision (the app it replaces is stopped). */
  | { type: 'serve'; releaseId: string }
  | { type: 'settle-canary' }
  | { type: 'prune-snapshots' }
  /** Undo: stop the started, unsupervised app (never throws). */
  | { type: 'stop-release'; releaseId: string }
  /** Put a snapshot back as the project database (deploy undo: a failure is added to the stored reason). */
  | { type: 'restore-snapshot'; snapshot: SnapshotRef; purpose: 'undo-deploy' | 'restore-data' }
  /** Restore-data rollback: keep the current data (and a marker for boot recovery) until the rollback commits. */
  | { type: 'save-data' }
  | { type: 'put-data-back' }
  | { type: 'discard-saved-data' }
  /** The failure as one SQLite transaction with its audit event (deploy: the candidate is failed; rollback: audited only). */
  | { type: 'commit-failure'; outcome: 'deploy' | 'rollback' }
  | { type: 'remove-artifact'; releaseId: string }
  /** Undo: start the stopped prior release under supervision and route it once healthy (never throws). */
  | { type: 'restart-release'; releaseId: string }
  /** Undo: give the route back to the app that kept serving, once healthy (never throws). */
  | { type: 'route-back' }
  /** Placed project: keep the verified upload's bytes for its runner node (the node's stage). */
  | { type: 'keep-artifact'; releaseId: string }
  /** Placed project: request a running generation of the release (a rollback with its intent); the node converges it. */
  | { type: 'converge-on-node'; releaseId: string; rollback: NodeRollbackIntent | null; canary?: true }
  /** Placed canary: wait until the node reports where the canary generation's candidate listens (its refusal fails the deploy). */
  | { type: 'await-node-canary'; releaseId: string }
  /** Undo of a placed canary: an ordinary generation of the baseline's release (the node aborts the candidate; never throws). */
  | { type: 'converge-back-on-node'; releaseId: string };

/** Steps 4 and the read-only part of verify: the same for every deploy. */
export function planDeployStart(releaseId: string): PipelineEffect[] {
  return [
    { type: 'enter', step: 'extract' },
    { type: 'stage-release', releaseId },
    { type: 'failpoint', name: 'after-extract' },
    { type: 'enter', step: 'verify' },
    { type: 'precheck-migrations', releaseId },
  ];
}

/** What the rest of a deploy depends on, decided after verify. */
export interface DeployDecision {
  releaseId: string;
  /** The release serving now, if any. */
  priorId: string | null;
  cutover: Cutover;
  /** A canary rollout runs (the baseline keeps serving; no stop, snapshot or migrations). */
  canary: boolean;
  /** The state machine's effects of activating the candidate (a dry run of the `activate` event). */
  activation: readonly ReleaseEffect[];
}

/** Steps 5–10 of a deploy that passed verify. */
export function planDeploy(d: DeployDecision): PipelineEffect[] {
  const { releaseId } = d;
  const plan: PipelineEffect[] = [];
  if (!d.canary && d.cutover === 'blue-green') {
    plan.push(
      { type: 'note', line: 'deploy: no migrations, so the active release keeps serving until the candidate is healthy' },
      { type: 'enter', step: 'snapshot' },
      { type: 'snapshot', releaseId, record: 'at-activation' },
      { type: 'failpoint', name: 'after-snapshot' },
    );
  } else if (!d.canary) {
    plan.push({ type: 'enter', step: 'stop-active' });
    if (d.priorId) plan.push({ type: 'quiesce', releaseId: d.priorId });
    plan.push(
      { type: 'failpoint', name: 'after-stop' },
      { type: 'enter', step: 'snapshot' },
      { type: 'snapshot', releaseId, record: 'now' },
      { type: 'failpoint', name: 'after-snapshot' },
      { type: 'enter', step: 'migrate' },
      { type: 'recovery-before-migrate', releaseId },
      { type: 'migrate', releaseId },
      { type: 'failpoint', name: 'after-migrate' },
    );
  }
  plan.push(
    { type: 'enter', step: 'start' },
    { type: 'start-release', releaseId },
    { type: 'failpoint', name: 'after-start' },
    { type: 'enter', step: 'health' },
    { type: 'health-check', releaseId },
  );
  if (d.canary) plan.push({ type: 'note', line: 'deploy: canary' }, { type: 'canary-run', releaseId });
  else plan.push({ type: 'recovery-after-healthy', releaseId });
  plan.push({ type: 'failpoint', name: 'after-health' }, { type: 'enter', step: 'activate' }, ...activationEffects(d.activation, 'activate'), {
    type: 'failpoint',
    name: 'after-activate',
  });
  // After a canary, serving also stops the drained baseline (supervision replaces the serving app).
  plan.push({ type: 'serve', releaseId });
  if (d.canary) plan.push({ type: 'settle-canary' });
  plan.push({ type: 'prune-snapshots' }, { type: 'note', line: 'deploy: active' });
  return plan;
}

/** The state machine's route + audit of an activation or rollback, as the pipeline runs them. */
function activationEffects(effects: readonly ReleaseEffect[], outcome: 'activate' | 'rollback'): PipelineEffect[] {
  return effects.flatMap((e): PipelineEffect[] => {
    if (e.type === 'route-traffic') return [{ type: 'route-traffic', releaseId: e.releaseId }];
    if (e.type === 'audit') return [{ type: 'commit', outcome }];
    return [];
  });
}

/** What a failed deploy or rollback had done when it failed. */
export interface FailureFacts {
  /** The candidate (or rollback target) was started. */
  started: boolean;
  /** Stop-first: the prior release was taken out of the ingress and stopped. */
  priorStopped: boolean;
  /** Traffic had moved to the failed release. */
  routed: boolean;
  /** The prior release's id, if one was active. */
  priorId: string | null;
}

/**
 * The undo of a failed deploy from the state machine's `fail` effects: stop the candidate, restore
 * the recorded snapshot, commit the failure, remove the candidate's files, then give the prior
 * release back — restarted if it was stopped, else the route back if traffic had moved. The commit
 * comes before the prior release is given back so a failed restart never leaves the candidate unsettled.
 */
export function planDeployFailure(failed: readonly ReleaseEffect[], facts: FailureFacts, releaseId: string, canary: boolean): PipelineEffect[] {
  const plan: PipelineEffect[] = [];
  let givePriorBack: PipelineEffect[] = [];
  for (const e of failed) {
    if (e.type === 'stop-release' && facts.started) plan.push({ type: 'stop-release', releaseId: e.releaseId });
    if (e.type === 'restore-snapshot') plan.push({ type: 'restore-snapshot', snapshot: e.snapshot, purpose: 'undo-deploy' });
    if (e.type === 'start-release') givePriorBack = priorBack(facts, e.releaseId);
  }
  plan.push(
    { type: 'failpoint', name: 'after-fail-restore' },
    { type: 'commit-failure', outcome: 'deploy' },
    { type: 'remove-artifact', releaseId },
    ...givePriorBack,
  );
  if (canary) plan.push({ type: 'settle-canary' });
  return plan;
}

function priorBack(facts: FailureFacts, priorId: string): PipelineEffect[] {
  if (facts.priorStopped) return [{ type: 'restart-release', releaseId: priorId }];
  return facts.routed ? [{ type: 'route-back' }] : [];
}

/** What a rollback depends on besides the state machine's decision. */
export interface RollbackDecision {
  cutover: Cutover;
  /** The note that opens the rollback in the project's log. */
  line: string;
}

/**
 * A rollback from the state machine's `rollback` effects. Stop-first: the active app stops (requests
 * held) and, for restore-data, the current data is saved before the snapshot goes back. Blue-green:
 * the active app keeps serving; serving the target stops it once the target is routed.
 */
export function planRollback(effects: readonly ReleaseEffect[], d: RollbackDecision): PipelineEffect[] {
  const plan: PipelineEffect[] = [{ type: 'note', line: d.line }];
  const stopFirst = d.cutover === 'stop-first';
  let target: string | null = null;
  let restores = false;
  for (const e of effects) {
    if (e.type === 'stop-release' && stopFirst)
      plan.push({ type: 'progress', step: 'stop-active' }, { type: 'quiesce', releaseId: e.releaseId }, { type: 'failpoint', name: 'rollback-after-stop' });
    if (e.type === 'restore-snapshot' && stopFirst) {
      restores = true;
      plan.push(
        { type: 'progress', step: 'snapshot', details: { restore: true } },
        { type: 'save-data' },
        { type: 'restore-snapshot', snapshot: e.snapshot, purpose: 'restore-data' },
        { type: 'failpoint', name: 'rollback-after-restore' },
      );
    }
    if (e.type === 'start-release') plan.push({ type: 'progress', step: 'start' }, { type: 'start-release', releaseId: (target = e.releaseId) });
    if (e.type === 'health-check') plan.push({ type: 'progress', step: 'health' }, { type: 'health-check', releaseId: e.releaseId });
  }
  plan.push({ type: 'progress', step: 'activate' }, ...activationEffects(effects, 'rollback'));
  if (target) plan.push({ type: 'serve', releaseId: target });
  if (restores) plan.push({ type: 'discard-saved-data' });
  plan.push({ type: 'prune-snapshots' });
  return plan;
}

/** The undo of a failed rollback: stop the target, put the saved data back, audit, give the prior release back. */
export function planRollbackFailure(facts: FailureFacts & { savedData: boolean; releaseId: string; reason: string }): PipelineEffect[] {
  const plan: PipelineEffect[] = [];
  if (facts.started) plan.push({ type: 'stop-release', releaseId: facts.releaseId });
  if (facts.savedData) plan.push({ type: 'put-data-back' });
  plan.push({ type: 'commit-failure', outcome: 'rollback' }, { type: 'note', line: `rollback failed: ${facts.reason}` });
  if (facts.priorId) plan.push(...priorBack(facts, facts.priorId));
  else if (facts.routed) plan.push({ type: 'route-back' });
  return plan;
}

// Projects placed on a runner node. The node converges a whole generation at once (stop,
// snapshot, migrate, start, health, cutover, its own undo) and reports asynchronously; the control
// plane keeps the artifact, requests the generation, awaits the outcome and commits it with the same
// commit effects as local deploys and rollbacks.

/** A placed project's deploy under the project lock: keep the bytes for the node, request the generation. */
export function planNodeDeploy(releaseId: string): PipelineEffect[] {
  return [
    { type: 'enter', step: 'extract' },
    { type: 'keep-artifact', releaseId },
    { type: 'failpoint', name: 'after-extract' },
    { type: 'enter', step: 'start' },
    { type: 'converge-on-node', releaseId, rollback: null },
  ];
}

/**
 * A placed project's canary under the project lock: the candidate starts on the node
 * beside the baseline (a canary generation), the rollout splits traffic to the address the node
 * reports, and promotion is an ordinary generation of the candidate's release (the node switches to
 * the running candidate without a restart); its outcome commits as any node deploy's.
 */
export function planNodeCanaryDeploy(releaseId: string): PipelineEffect[] {
  return [
    { type: 'enter', step: 'extract' },
    { type: 'keep-artifact', releaseId },
    { type: 'failpoint', name: 'after-extract' },
    { type: 'enter', step: 'start' },
    { type: 'converge-on-node', releaseId, rollback: null, canary: true },
    { type: 'enter', step: 'health' },
    { type: 'await-node-canary', releaseId },
    { type: 'note', line: 'deploy: canary on the runner node' },
    { type: 'canary-run', releaseId },
    { type: 'failpoint', name: 'after-health' },
    { type: 'enter', step: 'activate' },
    { type: 'converge-on-node', releaseId, rollback: null },
  ];
}

/**
 * A placed canary that failed (refused, candidate failed or lost, criteria missed): when
 * the node got the canary generation, an ordinary generation of the baseline's release aborts the
 * candidate (the baseline was never interrupted); then the same failure commit, and the run settles.
 */
export function planNodeCanaryFailure(reason: string, baselineBack: string | null): PipelineEffect[] {
  return [
    { type: 'note', line: `deploy failed: ${reason}` },
    ...(baselineBack ? [{ type: 'converge-back-on-node' as const, releaseId: baselineBack }] : []),
    { type: 'commit-failure', outcome: 'deploy' },
    { type: 'settle-canary' },
  ];
}

/** A placed project's deploy that failed before its node got it (the bytes could not be kept, the generation was refused). */
export function planNodeDeployFailure(reason: string): PipelineEffect[] {
  return [
    { type: 'note', line: `deploy failed: ${reason}` },
    { type: 'commit-failure', outcome: 'deploy' },
  ];
}

/**
 * A placed project's rollback from the state machine's `rollback` effects: the target's start becomes
 * one generation carrying the intent (the node stops, restores, starts, checks and routes itself).
 */
export function planNodeRollback(effects: readonly ReleaseEffect[], d: { line: string; rollback: NodeRollbackIntent }): PipelineEffect[] {
  const plan: PipelineEffect[] = [{ type: 'note', line: d.line }];
  for (const e of effects) if (e.type === 'start-release') plan.push({ type: 'converge-on-node', releaseId: e.releaseId, rollback: d.rollback });
  return plan;
}

/** What settling a node's outcome commits: an activation or rollback, or the failure with the node's code. */
export function planNodeSettle(kind: 'deploy' | 'rollback', outcome: NodeOutcome, canary = false): PipelineEffect[] {
  // A promoted canary's run settles once its activation (or failure) is committed.
  const settle: PipelineEffect[] = canary ? [{ type: 'settle-canary' }] : [];
  if (kind === 'deploy' && outcome.ok)
    return [
      { type: 'enter', step: 'activate' },
      { type: 'commit', outcome: 'activate' },
      ...settle,
      { type: 'note', line: 'deploy: active (observed by the runner node)' },
    ];
  if (kind === 'deploy' && !outcome.ok)
    return [{ type: 'note', line: `deploy failed on the runner node: ${outcome.code}` }, { type: 'commit-failure', outcome: 'deploy' }, ...settle];
  if (outcome.ok)
    return [
      { type: 'commit', outcome: 'rollback' },
      { type: 'note', line: 'rollback: active (observed by the runner node)' },
    ];
  return [
    { type: 'commit-failure', outcome: 'rollback' },
    { type: 'note', line: `rollback failed on the runner node: ${outcome.code}` },
  ];
}

/** Pure: the release step a node's stable failure code names (what the release shows, as for local projects). */
export function nodeFailureStep(code: string): ReleaseStep {
  if (code === 'SVC_HEALTH_CHECK_FAILED') return 'health';
  if (code.startsWith('SVC_MIGRATION_')) return 'migrate';
  if (code.startsWith('SVC_SNAPSHOT_') || code === 'SVC_DISK_FULL') return 'snapshot';
  return 'start';
}

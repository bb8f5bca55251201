// The pipeline plans are pure: given the state machine's effects and the run's facts, the exact
// ordered effects (with the crash-test failpoints in place) — no disk, no clock, no processes.
import { describe, expect, it } from 'vitest';
import {
  nodeFailureStep,
  planDeploy,
  planDeployFailure,
  planDeployStart,
  planNodeCanaryDeploy,
  planNodeCanaryFailure,
  planNodeDeploy,
  planNodeDeployFailure,
  planNodeRollback,
  planNodeSettle,
  planRollback,
  planRollbackFailure,
  type PipelineEffect,
} from '../../src/releases/release-plan.js';
import { restorePhrase, transition, type ReleaseRecord, type ReleaseSetState, type SnapshotRef } from '../../src/releases/release-state.js';

const snapA: SnapshotRef = { path: '/snap/a.db', sizeBytes: 8192 };
const rec = (id: string, status: ReleaseRecord['status'], extra: Partial<ReleaseRecord> = {}): ReleaseRecord => ({
  id,
  status,
  artifact: 'retained',
  predecessorId: null,
  restoreSnapshot: null,
  ...extra,
});
/** P (inactive) → A (active, with the snapshot taken before it), candidate C. */
const set: ReleaseSetState = {
  projectSlug: 'shop',
  releases: [rec('P', 'inactive'), rec('A', 'active', { predecessorId: 'P', restoreSnapshot: snapA }), rec('C', 'candidate')],
};
const firstDeploy: ReleaseSetState = { projectSlug: 'shop', releases: [rec('C', 'candidate')] };

const activation = (state: ReleaseSetState) => transition(state, { type: 'activate', releaseId: 'C', snapshot: null }).effects;
/** The plan with notes left out, as `type` or `type:detail` strings (easy to read in a diff). */
const shape = (plan: PipelineEffect[]): string[] =>
  plan
    .filter((e) => e.type !== 'note')
    .map((e) => {
      if (e.type === 'enter') return `enter:${e.step}`;
      if (e.type === 'progress') return `progress:${e.step}`;
      if (e.type === 'failpoint') return `failpoint:${e.name}`;
      if (e.type === 'snapshot') return `snapshot:${e.record}`;
      if (e.type === 'commit' || e.type === 'commit-failure') return `${e.type}:${e.outcome}`;
      if ('releaseId' in e) return `${e.type}:${e.releaseId}`;
      return e.type;
    });

describe('deploy plan', () => {
  it('starts the same way for every deploy: stage, then the read-only migration check', () => {
    expect(shape(planDeployStart('C'))).toEqual(['enter:extract', 'stage-release:C', 'failpoint:after-extract', 'enter:verify', 'precheck-migrations:C']);
  });

  it('stop-first: quiesce the prior release, snapshot recorded at once, migrate, then start, health, route, commit', () => {
    const plan = planDeploy({ releaseId: 'C', priorId: 'A', cutover: 'stop-first', canary: false, activation: activation(set) });
    expect(shape(plan)).toEqual([
      'enter:stop-active',
      'quiesce:A',
      'failpoint:after-stop',
      'enter:snapshot',
      'snapshot:now',
      'failpoint:after-snapshot',
      'enter:migrate',
      'recovery-before-migrate:C',
      'migrate:C',
      'failpoint:after-migrate',
      'enter:start',
      'start-release:C',
      'failpoint:after-start',
      'enter:health',
      'health-check:C',
      'recovery-after-healthy:C',
      'failpoint:after-health',
      'enter:activate',
      'route-traffic:C',
      'commit:activate',
      'failpoint:after-activate',
      'serve:C',
      'prune-snapshots',
    ]);
  });

  it('a first deploy stops nothing', () => {
    const plan = planDeploy({ releaseId: 'C', priorId: null, cutover: 'stop-first', canary: false, activation: activation(firstDeploy) });
    expect(shape(plan).slice(0, 2)).toEqual(['enter:stop-active', 'failpoint:after-stop']);
  });

  it('blue-green: the prior release keeps serving; the snapshot is recorded only at activation and nothing migrates', () => {
    const plan = planDeploy({ releaseId: 'C', priorId: 'A', cutover: 'blue-green', canary: false, activation: activation(set) });
    expect(shape(plan)).toEqual([
      'enter:snapshot',
      'snapshot:at-activation',
      'failpoint:after-snapshot',
      'enter:start',
      'start-release:C',
      'failpoint:after-start',
      'enter:health',
      'health-check:C',
      'recovery-after-healthy:C',
      'failpoint:after-health',
      'enter:activate',
      'route-traffic:C',
      'commit:activate',
      'failpoint:after-activate',
      'serve:C',
      'prune-snapshots',
    ]);
    expect(plan).toContainEqual({ type: 'note', line: 'deploy: no migrations, so the active release keeps serving until the candidate is healthy' });
    expect(shape(plan)).not.toContain('quiesce:A');
  });

  it('canary: no stop, snapshot or migration; the canary runs after health and settles after serving', () => {
    const plan = planDeploy({ releaseId: 'C', priorId: 'A', cutover: 'stop-first', canary: true, activation: activation(set) });
    expect(shape(plan)).toEqual([
      'enter:start',
      'start-release:C',
      'failpoint:after-start',
      'enter:health',
      'health-check:C',
      'canary-run:C',
      'failpoint:after-health',
      'enter:activate',
      'route-traffic:C',
      'commit:activate',
      'failpoint:after-activate',
      'serve:C',
      'settle-canary',
      'prune-snapshots',
    ]);
  });

  it('routes and commits exactly what the state machine says an activation does', () => {
    const plan = planDeploy({
      releaseId: 'C',
      priorId: 'A',
      cutover: 'blue-green',
      canary: false,
      activation: [{ type: 'audit', kind: 'release.activated', releaseId: 'C' }],
    });
    expect(shape(plan)).not.toContain('route-traffic:C');
    expect(shape(plan)).toContain('commit:activate');
  });
});

describe('deploy failure plan', () => {
  const failed = (snapshot: SnapshotRef | null) => transition(set, { type: 'fail', releaseId: 'C', step: 'health', snapshot, reason: 'timeout' }).effects;

  it('stop-first after migrating: stop the candidate, restore, commit, remove its files, restart the stopped prior release', () => {
    const plan = planDeployFailure(failed(snapA), { started: true, priorStopped: true, routed: false, priorId: 'A' }, 'C', false);
    expect(shape(plan)).toEqual([
      'stop-release:C',
      'restore-snapshot',
      'failpoint:after-fail-restore',
      'commit-failure:deploy',
      'remove-artifact:C',
      'restart-release:A',
    ]);
    expect(plan[1]).toEqual({ type: 'restore-snapshot', snapshot: snapA, purpose: 'undo-deploy' });
  });

  it('blue-green before routing: the prior release kept serving, so nothing is given back', () => {
    const plan = planDeployFailure(failed(null), { started: true, priorStopped: false, routed: false, priorId: 'A' }, 'C', false);
    expect(shape(plan)).toEqual(['stop-release:C', 'failpoint:after-fail-restore', 'commit-failure:deploy', 'remove-artifact:C']);
  });

  it('blue-green after routing: the route goes back to the app that kept serving', () => {
    const plan = planDeployFailure(failed(null), { started: true, priorStopped: false, routed: true, priorId: 'A' }, 'C', false);
    expect(shape(plan).at(-1)).toBe('route-back');
  });

  it('a candidate that never started is not stopped; a canary is settled last', () => {
    const plan = planDeployFailure(failed(null), { started: false, priorStopped: false, routed: false, priorId: 'A' }, 'C', true);
    expect(shape(plan)).toEqual(['failpoint:after-fail-restore', 'commit-failure:deploy', 'remove-artifact:C', 'settle-canary']);
  });

  it('a first deploy has no prior release to give back', () => {
    const effects = transition(firstDeploy, { type: 'fail', releaseId: 'C', step: 'startup', snapshot: null, reason: 'exit' }).effects;
    const plan = planDeployFailure(effects, { started: true, priorStopped: false, routed: false, priorId: null }, 'C', false);
    expect(shape(plan)).toEqual(['stop-release:C', 'failpoint:after-fail-restore', 'commit-failure:deploy', 'remove-artifact:C']);
  });
});

describe('rollback plan', () => {
  const codeOnly = transition(set, { type: 'rollback', releaseId: 'P', restoreData: false, canRollback: true }).effects;
  const restore = transition(set, { type: 'rollback', releaseId: 'P', restoreData: true, confirmation: restorePhrase('shop'), canRollback: true }).effects;

  it('blue-green code-only: start, health, route, commit, then serving stops the old app (each step reported first)', () => {
    const plan = planRollback(codeOnly, { cutover: 'blue-green', line: 'rollback to P' });
    expect(plan[0]).toEqual({ type: 'note', line: 'rollback to P' });
    expect(shape(plan)).toEqual([
      'progress:start',
      'start-release:P',
      'progress:health',
      'health-check:P',
      'progress:activate',
      'route-traffic:P',
      'commit:rollback',
      'serve:P',
      'prune-snapshots',
    ]);
  });

  it('stop-first code-only: the active app is quiesced first', () => {
    expect(shape(planRollback(codeOnly, { cutover: 'stop-first', line: '' }))).toEqual([
      'progress:stop-active',
      'quiesce:A',
      'failpoint:rollback-after-stop',
      'progress:start',
      'start-release:P',
      'progress:health',
      'health-check:P',
      'progress:activate',
      'route-traffic:P',
      'commit:rollback',
      'serve:P',
      'prune-snapshots',
    ]);
  });

  it('restore-data: the current data is saved before the snapshot goes back, and discarded only after the commit', () => {
    const plan = planRollback(restore, { cutover: 'stop-first', line: '' });
    expect(shape(plan)).toEqual([
      'progress:stop-active',
      'quiesce:A',
      'failpoint:rollback-after-stop',
      'progress:snapshot',
      'save-data',
      'restore-snapshot',
      'failpoint:rollback-after-restore',
      'progress:start',
      'start-release:P',
      'progress:health',
      'health-check:P',
      'progress:activate',
      'route-traffic:P',
      'commit:rollback',
      'serve:P',
      'discard-saved-data',
      'prune-snapshots',
    ]);
    expect(plan).toContainEqual({ type: 'restore-snapshot', snapshot: snapA, purpose: 'restore-data' });
    // Shown as restoring the database, not taking a snapshot.
    expect(plan).toContainEqual({ type: 'progress', step: 'snapshot', details: { restore: true } });
  });

  it('failure: stop the target, put saved data back, audit, restart the stopped release', () => {
    expect(
      shape(planRollbackFailure({ started: true, priorStopped: true, routed: false, priorId: 'A', savedData: true, releaseId: 'P', reason: 'timeout' })),
    ).toEqual(['stop-release:P', 'put-data-back', 'commit-failure:rollback', 'restart-release:A']);
  });

  it('failure of a blue-green rollback before routing leaves the serving app alone', () => {
    const plan = planRollbackFailure({ started: false, priorStopped: false, routed: false, priorId: 'A', savedData: false, releaseId: 'P', reason: 'refused' });
    expect(plan).toEqual([
      { type: 'commit-failure', outcome: 'rollback' },
      { type: 'note', line: 'rollback failed: refused' },
    ]);
  });
});

describe('placed projects (a runner node converges the generation)', () => {
  /** P (inactive) → A (active; its pre-deploy snapshot is on the node, so none is recorded here). */
  const placed: ReleaseSetState = { projectSlug: 'shop', releases: [rec('P', 'inactive'), rec('A', 'active', { predecessorId: 'P' })] };
  const nodeRollback = (restoreData: boolean) =>
    transition(placed, {
      type: 'rollback',
      releaseId: 'P',
      restoreData,
      ...(restoreData ? { confirmation: restorePhrase('shop') } : {}),
      canRollback: true,
      dataOnNode: true,
    }).effects;

  it('deploy under the lock: keep the artifact for the node, then request its generation (nothing runs locally)', () => {
    expect(shape(planNodeDeploy('C'))).toEqual(['enter:extract', 'keep-artifact:C', 'failpoint:after-extract', 'enter:start', 'converge-on-node:C']);
    expect(planNodeDeploy('C')).toContainEqual({ type: 'converge-on-node', releaseId: 'C', rollback: null });
  });

  it('a deploy the node never got fails through the same failure commit', () => {
    expect(planNodeDeployFailure('SVC_DISK_FULL: full')).toEqual([
      { type: 'note', line: 'deploy failed: SVC_DISK_FULL: full' },
      { type: 'commit-failure', outcome: 'deploy' },
    ]);
  });

  it('the node outcome settles with the commit effects of local deploys and rollbacks', () => {
    expect(shape(planNodeSettle('deploy', { ok: true }))).toEqual(['enter:activate', 'commit:activate']);
    expect(shape(planNodeSettle('deploy', { ok: false, code: 'SVC_HEALTH_CHECK_FAILED' }))).toEqual(['commit-failure:deploy']);
    expect(shape(planNodeSettle('rollback', { ok: true }))).toEqual(['commit:rollback']);
    expect(planNodeSettle('rollback', { ok: false, code: 'SVC_MIGRATION_FAILED' })).toEqual([
      { type: 'commit-failure', outcome: 'rollback' },
      { type: 'note', line: 'rollback failed on the runner node: SVC_MIGRATION_FAILED' },
    ]);
  });

  it('canary: a canary generation, the candidate the node reports, the rollout, then an ordinary generation of the candidate promotes it', () => {
    const plan = planNodeCanaryDeploy('C');
    expect(shape(plan)).toEqual([
      'enter:extract',
      'keep-artifact:C',
      'failpoint:after-extract',
      'enter:start',
      'converge-on-node:C',
      'enter:health',
      'await-node-canary:C',
      'canary-run:C',
      'failpoint:after-health',
      'enter:activate',
      'converge-on-node:C',
    ]);
    const converges = plan.filter((e) => e.type === 'converge-on-node');
    expect(converges).toEqual([
      { type: 'converge-on-node', releaseId: 'C', rollback: null, canary: true },
      { type: 'converge-on-node', releaseId: 'C', rollback: null },
    ]);
    // Nothing stops, snapshots, migrates or commits under the lock: the promotion's outcome commits as any node deploy's.
    expect(plan.some((e) => ['quiesce', 'snapshot', 'migrate', 'commit', 'route-traffic', 'start-release'].includes(e.type))).toBe(false);
    expect(shape(planNodeSettle('deploy', { ok: true }, true))).toEqual(['enter:activate', 'commit:activate', 'settle-canary']);
    expect(shape(planNodeSettle('deploy', { ok: false, code: 'SVC_HEALTH_CHECK_FAILED' }, true))).toEqual(['commit-failure:deploy', 'settle-canary']);
  });

  it('canary failure: an ordinary generation of the baseline aborts the candidate, then the same failure commit; no baseline generation when the node never got the canary', () => {
    expect(shape(planNodeCanaryFailure('SVC_CANARY_CRITERIA_FAILED: x', 'A'))).toEqual(['converge-back-on-node:A', 'commit-failure:deploy', 'settle-canary']);
    expect(planNodeCanaryFailure('SVC_CANARY_CRITERIA_FAILED: x', 'A')[0]).toEqual({ type: 'note', line: 'deploy failed: SVC_CANARY_CRITERIA_FAILED: x' });
    expect(shape(planNodeCanaryFailure('SVC_CANARY_RECOVERY_ENABLED: refused', null))).toEqual(['commit-failure:deploy', 'settle-canary']);
  });

  it('rollback: the target start becomes one generation carrying the intent; the node stops, restores, checks and routes', () => {
    const code = planNodeRollback(nodeRollback(false), { line: 'rollback to P', rollback: { restoreData: false, fromReleaseId: 'A' } });
    expect(code).toEqual([
      { type: 'note', line: 'rollback to P' },
      { type: 'converge-on-node', releaseId: 'P', rollback: { restoreData: false, fromReleaseId: 'A' } },
    ]);
    const restore = planNodeRollback(nodeRollback(true), { line: '', rollback: { restoreData: true, fromReleaseId: 'A' } });
    expect(shape(restore)).toEqual(['converge-on-node:P']);
    expect(restore).toContainEqual({ type: 'converge-on-node', releaseId: 'P', rollback: { restoreData: true, fromReleaseId: 'A' } });
  });

  it('the state machine validates a placed rollback as a local one, without a snapshot row', () => {
    expect(() =>
      transition(placed, { type: 'rollback', releaseId: 'P', restoreData: true, confirmation: 'restore nope', canRollback: true, dataOnNode: true }),
    ).toThrow(expect.objectContaining({ code: 'SVC_RELEASE_CONFIRMATION_MISMATCH' }));
    expect(() => transition(placed, { type: 'rollback', releaseId: 'A', restoreData: false, canRollback: true, dataOnNode: true })).toThrow(
      expect.objectContaining({ code: 'SVC_RELEASE_INVALID_TRANSITION' }),
    );
    expect(nodeRollback(true).some((e) => e.type === 'restore-snapshot')).toBe(false);
  });

  it.each([
    ['SVC_HEALTH_CHECK_FAILED', 'health'],
    ['SVC_MIGRATION_FAILED', 'migrate'],
    ['SVC_SNAPSHOT_MISSING', 'snapshot'],
    ['SVC_NODE_GENERATION_SUPERSEDED', 'start'],
  ])('a node failure %s is stored at step %s', (code, step) => {
    expect(nodeFailureStep(code)).toBe(step);
  });
});

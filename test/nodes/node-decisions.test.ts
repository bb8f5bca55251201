// Pure decisions of src/nodes: placement, node status, lease choice, fences and report judgement.
import { describe, expect, it } from 'vitest';
import { CANARY_GONE_AFTER, nextCanary } from '../../src/nodes/node-canaries.js';
import { reportShows } from '../../src/nodes/node-leases.js';
import { nodeStatus } from '../../src/nodes/node-status.js';
import { chooseLease, decideFailure, judgeFailure, judgeObservation, nextGeneration, type OperationRecord } from '../../src/nodes/operation-decisions.js';
import { decideNodeRoute, heldRoute, routeStillValid } from '../../src/nodes/route-decisions.js';
import { nodeFailureStep } from '../../src/releases/release-plan.js';
import { transition, type ReleaseSetState } from '../../src/releases/release-state.js';
import { placeProject, type PlacementNode } from '../../src/nodes/place-project.js';

const node = (id: string, over: Partial<PlacementNode> = {}): PlacementNode => ({
  id,
  region: 'eu-west',
  labels: {},
  capacity: 4,
  placed: 0,
  status: 'ready',
  ...over,
});

describe('placeProject', () => {
  const cases: { name: string; nodes: PlacementNode[]; request: Parameters<typeof placeProject>[1]; expected: string | null }[] = [
    { name: 'no nodes', nodes: [], request: {}, expected: null },
    { name: 'single ready node', nodes: [node('a')], request: {}, expected: 'a' },
    { name: 'region filter', nodes: [node('a'), node('b', { region: 'us-east' })], request: { region: 'us-east' }, expected: 'b' },
    { name: 'region with no match', nodes: [node('a')], request: { region: 'ap-south' }, expected: null },
    {
      name: 'label subset match',
      nodes: [node('a', { labels: { gpu: 'no' } }), node('b', { labels: { gpu: 'yes', disk: 'ssd' } })],
      request: { labels: { gpu: 'yes' } },
      expected: 'b',
    },
    { name: 'label value must be equal', nodes: [node('a', { labels: { gpu: 'no' } })], request: { labels: { gpu: 'yes' } }, expected: null },
    { name: 'missing label key', nodes: [node('a', { labels: {} })], request: { labels: { disk: 'ssd' } }, expected: null },
    { name: 'full node skipped', nodes: [node('a', { capacity: 2, placed: 2 }), node('b', { capacity: 2, placed: 1 })], request: {}, expected: 'b' },
    { name: 'all full', nodes: [node('a', { capacity: 1, placed: 1 })], request: {}, expected: null },
    { name: 'draining skipped', nodes: [node('a', { status: 'draining' }), node('b', { placed: 3 })], request: {}, expected: 'b' },
    { name: 'offline skipped', nodes: [node('a', { status: 'offline' })], request: {}, expected: null },
    { name: 'fewest placed wins', nodes: [node('a', { placed: 2 }), node('b', { placed: 1 }), node('c', { placed: 3 })], request: {}, expected: 'b' },
    { name: 'tie broken by id', nodes: [node('c', { placed: 1 }), node('a', { placed: 1 }), node('b', { placed: 1 })], request: {}, expected: 'a' },
    {
      name: 'region and labels together',
      nodes: [node('a', { labels: { t: 'x' } }), node('b', { region: 'us-east', labels: { t: 'x' } })],
      request: { region: 'us-east', labels: { t: 'x' } },
      expected: 'b',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(placeProject(c.nodes, c.request)?.id ?? null).toBe(c.expected);
    });
  }
});

describe('nodeStatus', () => {
  it('is offline when never seen or seen longer ago than the node lease', () => {
    expect(nodeStatus({ draining: false, lastSeenAt: null }, 1000, 30_000)).toBe('offline');
    expect(nodeStatus({ draining: false, lastSeenAt: 0 }, 30_000, 30_000)).toBe('offline');
    expect(nodeStatus({ draining: true, lastSeenAt: 0 }, 40_000, 30_000)).toBe('offline');
  });
  it('is draining or ready while fresh', () => {
    expect(nodeStatus({ draining: true, lastSeenAt: 0 }, 29_999, 30_000)).toBe('draining');
    expect(nodeStatus({ draining: false, lastSeenAt: 0 }, 29_999, 30_000)).toBe('ready');
  });
});

const op = (id: string, over: Partial<OperationRecord> = {}): OperationRecord => ({
  id,
  projectId: `p-${id}`,
  nodeId: 'n1',
  generation: 1,
  state: 'running',
  releaseId: 'rel_1',
  fence: 1,
  status: 'pending',
  leaseExpiresAt: null,
  createdAt: 0,
  ...over,
});

describe('chooseLease', () => {
  const n1 = { id: 'n1', concurrency: 2, draining: false };
  it('hands out the oldest pending operation of the node only', () => {
    const ops = [op('b', { createdAt: 5 }), op('a', { createdAt: 3 }), op('x', { nodeId: 'n2', createdAt: 1 })];
    expect(chooseLease(ops, n1, 100)).toEqual({ op: ops[1], reissue: false });
  });
  it('respects concurrency: live leases count, expired ones do not', () => {
    const live = [op('a', { status: 'leased', leaseExpiresAt: 200 }), op('b', { status: 'leased', leaseExpiresAt: 200 }), op('c')];
    expect(chooseLease(live, n1, 100)).toBeNull();
    expect(chooseLease(live, { ...n1, concurrency: 3 }, 100)?.op.id).toBe('c');
  });
  it('re-issues an operation whose lease expired (it needs a new fence)', () => {
    const ops = [op('a', { status: 'leased', leaseExpiresAt: 100 })];
    expect(chooseLease(ops, n1, 99)).toBeNull();
    expect(chooseLease(ops, { ...n1, concurrency: 1 }, 99)).toBeNull();
    expect(chooseLease(ops, n1, 100)).toEqual({ op: ops[0], reissue: true });
  });
  it('gives a draining node nothing new', () => {
    expect(chooseLease([op('a')], { ...n1, draining: true }, 0)).toBeNull();
  });
  it('ignores finished operations', () => {
    expect(chooseLease([op('a', { status: 'observed' }), op('b', { status: 'superseded' }), op('c', { status: 'failed' })], n1, 0)).toBeNull();
  });
});

describe('nextGeneration', () => {
  it('strictly increases generation and fence', () => {
    expect(nextGeneration(null)).toEqual({ generation: 1, fence: 1 });
    expect(nextGeneration({ generation: 3, fence: 7 })).toEqual({ generation: 4, fence: 8 });
  });
});

describe('judgeObservation', () => {
  const leased = op('a', { status: 'leased', leaseExpiresAt: 1000, fence: 4, generation: 2 });
  const result = { kind: 'process', generation: 2, releaseId: 'rel_1', state: 'running' as const };
  it('accepts the current holder with the current fence and matching generation', () => {
    expect(judgeObservation(leased, 'n1', 999, { result })).toEqual({ kind: 'accept' });
    expect(judgeObservation(leased, 'n1', 999, { fence: 4, result })).toEqual({ kind: 'accept' });
  });
  it('refuses a stale fence, an expired lease, another node, an older generation', () => {
    const stale = { kind: 'refuse', code: 'SVC_PROVIDER_STALE_FENCE' };
    expect(judgeObservation(leased, 'n1', 999, { fence: 3, result })).toEqual(stale);
    expect(judgeObservation(leased, 'n1', 1000, { result })).toEqual(stale);
    expect(judgeObservation(leased, 'n2', 999, { result })).toEqual(stale);
    expect(judgeObservation(leased, 'n1', 999, { result: { ...result, generation: 1 } })).toEqual(stale);
    expect(judgeObservation({ ...leased, status: 'superseded' }, 'n1', 999, { result })).toEqual(stale);
  });
  it('refuses a result that does not match the operation', () => {
    const mismatch = { kind: 'refuse', code: 'SVC_NODE_OBSERVATION_MISMATCH' };
    expect(judgeObservation(leased, 'n1', 999, { result: { ...result, releaseId: 'rel_2' } })).toEqual(mismatch);
    expect(judgeObservation(leased, 'n1', 999, { result: { ...result, state: 'stopped' } })).toEqual(mismatch);
    expect(judgeObservation(leased, 'n1', 999, { result: { ...result, generation: 3 } })).toEqual(mismatch);
  });
  it('treats a retried identical observation as a replay', () => {
    expect(judgeObservation({ ...leased, status: 'observed', leaseExpiresAt: null }, 'n1', 5000, { fence: 4, result })).toEqual({ kind: 'replay' });
    expect(judgeObservation({ ...leased, status: 'observed', leaseExpiresAt: null }, 'n1', 5000, { fence: 5, result })).toEqual({
      kind: 'refuse',
      code: 'SVC_PROVIDER_STALE_FENCE',
    });
  });
});

describe('judgeFailure', () => {
  const leased = { ...op('a', { status: 'leased', leaseExpiresAt: 1000, fence: 2 }), errorCode: null };
  it('accepts the holder, replays an identical report, refuses stale holders', () => {
    expect(judgeFailure(leased, 'n1', 10, { code: 'SVC_PROVIDER_FAILED' })).toEqual({ kind: 'accept' });
    expect(judgeFailure({ ...leased, status: 'failed', errorCode: 'SVC_PROVIDER_FAILED' }, 'n1', 10, { code: 'SVC_PROVIDER_FAILED' })).toEqual({
      kind: 'replay',
    });
    expect(judgeFailure(leased, 'n1', 1000, { code: 'SVC_PROVIDER_FAILED' })).toEqual({ kind: 'refuse', code: 'SVC_PROVIDER_STALE_FENCE' });
    expect(judgeFailure(leased, 'n1', 10, { fence: 1, code: 'SVC_PROVIDER_FAILED' })).toEqual({ kind: 'refuse', code: 'SVC_PROVIDER_STALE_FENCE' });
  });
});

describe('decideFailure', () => {
  const policy = { maxAttempts: 3, retryDelayMs: 1000 };
  it('hands back a lost exchange or a passing cause, with a doubling delay, until the attempts run out', () => {
    expect(decideFailure('SVC_PROVIDER_UNREACHABLE', 1, 10_000, policy)).toEqual({ kind: 'retry', retryAt: 11_000 });
    expect(decideFailure('SVC_PROVIDER_ABORTED', 2, 10_000, policy)).toEqual({ kind: 'retry', retryAt: 12_000 });
    expect(decideFailure('SVC_PROVIDER_UNREACHABLE', 3, 10_000, policy)).toEqual({ kind: 'fail' });
  });
  it('keeps an answered failure or a configuration error final', () => {
    for (const code of ['SVC_PROVIDER_FAILED', 'SVC_PROVIDER_REDIRECT_REFUSED', 'SVC_PROVIDER_REJECTED', 'SVC_HEALTH_CHECK_FAILED'])
      expect(decideFailure(code, 1, 0, policy)).toEqual({ kind: 'fail' });
  });
});

describe('decideNodeRoute', () => {
  const up = { host: '127.0.0.1', port: 4100 };
  const report = { projectId: 'p', generation: 2, state: 'running' as const, releaseId: 'r2', upstream: up };
  it('routes the placed node’s running release, ignores other nodes and older generations', () => {
    expect(decideNodeRoute(undefined, report, 'n1', 'n1')).toEqual({ kind: 'set', route: { nodeId: 'n1', generation: 2, releaseId: 'r2', upstream: up } });
    expect(decideNodeRoute(undefined, report, 'n2', 'n1')).toEqual({ kind: 'keep' });
    const current = { nodeId: 'n1', generation: 3, releaseId: 'r3', upstream: { host: '127.0.0.1', port: 4200 } };
    expect(decideNodeRoute(current, report, 'n1', 'n1')).toEqual({ kind: 'keep' });
  });
  it('unroutes a stopped project or an app that is down, and only records a newer generation with the same target', () => {
    const current = { nodeId: 'n1', generation: 2, releaseId: 'r2', upstream: up };
    expect(decideNodeRoute(current, { ...report, generation: 3, state: 'stopped', releaseId: null, upstream: null }, 'n1', 'n1')).toMatchObject({
      kind: 'set',
      route: { upstream: null },
    });
    expect(decideNodeRoute(current, { ...report, upstream: null }, 'n1', 'n1')).toMatchObject({ kind: 'set', route: { upstream: null } });
    expect(decideNodeRoute(current, { ...report, generation: 4 }, 'n1', 'n1')).toEqual({ kind: 'record', route: { ...current, generation: 4 } });
  });
  it('keeps a route only while its node is not offline and the project is still placed there', () => {
    const route = { nodeId: 'n1', generation: 2, releaseId: 'r2', upstream: up };
    expect(routeStillValid(route, 'n1', 'ready')).toBe(true);
    expect(routeStillValid(route, 'n1', 'offline')).toBe(false);
    expect(routeStillValid(route, 'n2', 'ready')).toBe(false);
  });
});

describe('a held route (stop-first cutover on the node)', () => {
  const up = { host: '10.0.0.5', port: 4100 };
  const routed = { nodeId: 'n1', generation: 3, releaseId: 'r3', upstream: up };
  const held = heldRoute(routed, 'n1', 1000, 30_000);
  it('keeps the generation, routes nothing and ends after holdMs', () => {
    expect(held).toEqual({ nodeId: 'n1', generation: 3, releaseId: null, upstream: null, heldUntil: 31_000 });
    expect(heldRoute(undefined, 'n1', 0, 10).generation).toBe(0);
  });
  it('ignores reports of the generation being replaced while held, even one sent before the writer stopped', () => {
    const stale = { projectId: 'p', generation: 3, state: 'running' as const, releaseId: 'r3', upstream: up };
    expect(decideNodeRoute(held, stale, 'n1', 'n1', 2000)).toEqual({ kind: 'keep' });
    expect(decideNodeRoute(held, { ...stale, upstream: null }, 'n1', 'n1', 2000)).toEqual({ kind: 'keep' });
  });
  it('the new generation ends the hold at its upstream', () => {
    const next = { projectId: 'p', generation: 4, state: 'running' as const, releaseId: 'r4', upstream: { host: '10.0.0.5', port: 4200 } };
    expect(decideNodeRoute(held, next, 'n1', 'n1', 2000)).toEqual({
      kind: 'set',
      route: { nodeId: 'n1', generation: 4, releaseId: 'r4', upstream: next.upstream },
    });
  });
  it('after holdMs (or once released) the old generation routes again', () => {
    const back = { projectId: 'p', generation: 3, state: 'running' as const, releaseId: 'r3', upstream: up };
    expect(decideNodeRoute(held, back, 'n1', 'n1', 31_000)).toEqual({ kind: 'set', route: routed });
    const { heldUntil: _ended, ...released } = held;
    expect(decideNodeRoute(released, back, 'n1', 'n1', 2000)).toEqual({ kind: 'set', route: routed });
  });
});

describe('nodeFailureStep', () => {
  it.each([
    ['SVC_HEALTH_CHECK_FAILED', 'health'],
    ['SVC_MIGRATION_FAILED', 'migrate'],
    ['SVC_MIGRATION_MISSING', 'migrate'],
    ['SVC_SNAPSHOT_MISSING', 'snapshot'],
    ['SVC_DISK_FULL', 'snapshot'],
    ['SVC_PROVIDER_FAILED', 'start'],
    ['SVC_NODE_GENERATION_SUPERSEDED', 'start'],
  ])('%s → %s', (code, step) => {
    expect(nodeFailureStep(code)).toBe(step);
  });
});

describe('a restore-data rollback of a placed project (the state machine with dataOnNode)', () => {
  const set: ReleaseSetState = {
    projectSlug: 'shop',
    releases: [
      { id: 'r1', status: 'inactive', artifact: 'retained', predecessorId: null, restoreSnapshot: null },
      { id: 'r2', status: 'inactive', artifact: 'retained', predecessorId: 'r1', restoreSnapshot: null },
      // The node holds the snapshot: the control plane records none for a placed project.
      { id: 'r3', status: 'active', artifact: 'retained', predecessorId: 'r2', restoreSnapshot: null },
    ],
  };
  const rollback =
    (releaseId: string, confirmation: string | undefined, dataOnNode = true) =>
    () =>
      transition(set, {
        type: 'rollback',
        releaseId,
        restoreData: true,
        ...(confirmation === undefined ? {} : { confirmation }),
        canRollback: true,
        dataOnNode,
      });
  it('needs the exact confirmation and the active release predecessor, not a snapshot row', () => {
    expect(rollback('r2', 'restore shop')).not.toThrow();
    expect(rollback('r2', 'restore shop')().effects.map((e) => e.type)).toEqual(['stop-release', 'start-release', 'health-check', 'route-traffic', 'audit']);
    expect(rollback('r2', 'restore shop ')).toThrow(expect.objectContaining({ code: 'SVC_RELEASE_CONFIRMATION_MISMATCH' }));
    expect(rollback('r2', undefined)).toThrow(expect.objectContaining({ code: 'SVC_RELEASE_CONFIRMATION_MISMATCH' }));
    expect(rollback('r1', 'restore shop')).toThrow(expect.objectContaining({ code: 'SVC_RESTORE_NOT_ALLOWED' }));
    // A local project needs the snapshot row.
    expect(rollback('r2', 'restore shop', false)).toThrow(expect.objectContaining({ code: 'SVC_RESTORE_NOT_ALLOWED' }));
  });
});

describe('canary candidates a node reports', () => {
  const up = { host: '10.0.0.5', port: 4100 };
  const report = (canary?: { generation: number; releaseId: string; upstream: { host: string; port: number } | null }) => ({
    projectId: 'p',
    generation: 3,
    state: 'running' as const,
    releaseId: 'A',
    upstream: { host: '10.0.0.5', port: 4000 },
    ...(canary ? { canary } : {}),
  });

  it('a shown candidate is kept; it is gone only after reports in a row without it (one may predate it) or when it is down', () => {
    const shown = nextCanary(undefined, report({ generation: 4, releaseId: 'C', upstream: up }), 'n1');
    expect(shown).toEqual({ nodeId: 'n1', generation: 4, releaseId: 'C', upstream: up, misses: 0 });
    const once = nextCanary(shown!, report(), 'n1');
    expect(once?.misses).toBe(1);
    expect(nextCanary(once!, report({ generation: 4, releaseId: 'C', upstream: up }), 'n1')?.misses).toBe(0);
    expect(CANARY_GONE_AFTER).toBe(2);
    expect(nextCanary(once!, report(), 'n1')).toBeNull();
    expect(nextCanary(once!, undefined, 'n1')).toBeNull();
    expect(
      nextCanary(
        nextCanary(shown!, report({ generation: 4, releaseId: 'C', upstream: null }), 'n1')!,
        report({ generation: 4, releaseId: 'C', upstream: null }),
        'n1',
      ),
    ).toBeNull();
    // An older candidate never replaces a newer one.
    expect(nextCanary(shown!, report({ generation: 2, releaseId: 'B', upstream: up }), 'n1')?.generation).toBe(4);
    expect(nextCanary(undefined, report(), 'n1')).toBeNull();
  });

  it('a canary operation is observed from a report only by its staged candidate, an ordinary one only by what serves', () => {
    const canaryOp = { generation: 4, state: 'running' as const, release_id: 'C', canary: 1 };
    expect(reportShows(canaryOp, report({ generation: 4, releaseId: 'C', upstream: up }))).toBe(true);
    expect(reportShows(canaryOp, report({ generation: 5, releaseId: 'C', upstream: up }))).toBe(false);
    expect(reportShows(canaryOp, { ...report(), generation: 4, releaseId: 'C' })).toBe(false);
    const promote = { ...canaryOp, generation: 5, canary: 0 };
    expect(reportShows(promote, { ...report(), generation: 5, releaseId: 'C' })).toBe(true);
    expect(reportShows(promote, report({ generation: 5, releaseId: 'C', upstream: up }))).toBe(false);
  });
});

// Pure parts of a runner node's cutover: the plan of one running request (blue-green, stop-first,
// restore, refusal), the rollback field of requests and bridge headers, and which failures keep their code.
import { describe, expect, it } from 'vitest';
import { bridgeHeaders, parseRollbackHeaders, rollbackHeaders } from '../../../runner/provider/bridge-protocol.js';
import { planNodeCutover, type NodeCutoverFacts } from '../../../runner/provider/node-cutover.js';
import { checkReconcileRequest, runReconcile, type ProviderArtifact, type ReconcileRequest } from '../../../runner/provider/provider-contract.js';
import { agentOperationSchema } from '../../../runner/provider/open-provider-deployment-agent.js';
import { SvcError } from '../../../src/core/errors.js';

const facts = (over: Partial<NodeCutoverFacts> = {}): NodeCutoverFacts => ({
  pendingMigrations: 0,
  priorRunning: true,
  sameRelease: false,
  rollback: null,
  activeReleaseId: 'rel_2',
  activeSnapshotExists: true,
  ...over,
});

describe('planNodeCutover', () => {
  const cases: { name: string; facts: NodeCutoverFacts; expected: ReturnType<typeof planNodeCutover> }[] = [
    { name: 'code-only deploy beside the running app', facts: facts(), expected: { kind: 'blue-green' } },
    { name: 'a migration is stop-first', facts: facts({ pendingMigrations: 1 }), expected: { kind: 'stop-first', restore: false } },
    {
      name: 'nothing running: stop-first (nothing to serve meanwhile)',
      facts: facts({ priorRunning: false }),
      expected: { kind: 'stop-first', restore: false },
    },
    {
      name: 'the same release again (its app ended) never runs beside itself',
      facts: facts({ sameRelease: true }),
      expected: { kind: 'stop-first', restore: false },
    },
    { name: 'code-only rollback is blue-green', facts: facts({ rollback: { restoreData: false, fromReleaseId: 'rel_2' } }), expected: { kind: 'blue-green' } },
    {
      name: 'rollback whose migrations the database lacks is stop-first',
      facts: facts({ pendingMigrations: 2, rollback: { restoreData: false, fromReleaseId: 'rel_2' } }),
      expected: { kind: 'stop-first', restore: false },
    },
    {
      name: 'restore-data rollback restores the snapshot taken before the active release',
      facts: facts({ rollback: { restoreData: true, fromReleaseId: 'rel_2' } }),
      expected: { kind: 'stop-first', restore: true, snapshotOf: 'rel_2' },
    },
    {
      name: 'restore when the node runs another release than the control plane saw',
      facts: facts({ rollback: { restoreData: true, fromReleaseId: 'rel_9' } }),
      expected: { kind: 'refuse', code: 'SVC_RESTORE_NOT_ALLOWED', message: expect.any(String) as string },
    },
    {
      name: 'restore with nothing active',
      facts: facts({ activeReleaseId: null, rollback: { restoreData: true, fromReleaseId: null } }),
      expected: { kind: 'refuse', code: 'SVC_RESTORE_NOT_ALLOWED', message: expect.any(String) as string },
    },
    {
      name: 'restore without the pre-deploy snapshot',
      facts: facts({ activeSnapshotExists: false, rollback: { restoreData: true, fromReleaseId: 'rel_2' } }),
      expected: { kind: 'refuse', code: 'SVC_SNAPSHOT_MISSING', message: expect.any(String) as string },
    },
  ];
  it.each(cases)('$name', ({ facts: f, expected }) => {
    expect(planNodeCutover(f)).toEqual(expected);
  });
});

const sha = 'ab'.repeat(32);
const artifact = { bytes: Buffer.from('x'), sha256: sha, decoded: { digest: sha } } as unknown as ProviderArtifact;
const signal = new AbortController().signal;
const running: ReconcileRequest = {
  operation: { projectId: 'p1', id: 'op1', fence: 2 },
  desired: { generation: 3, state: 'running', releaseId: 'rel_1' },
  artifact,
  signal,
};

describe('the rollback field', () => {
  it('is validated on requests: running only, exact shape', () => {
    expect(() => checkReconcileRequest({ ...running, rollback: { restoreData: true, fromReleaseId: 'rel_2' } })).not.toThrow();
    expect(() => checkReconcileRequest({ ...running, rollback: { restoreData: 'yes', fromReleaseId: 'rel_2' } as never })).toThrow(
      expect.objectContaining({ code: 'SVC_VALIDATION' }),
    );
    expect(() => checkReconcileRequest({ ...running, rollback: { restoreData: true, fromReleaseId: 'rel 2' } })).toThrow(
      expect.objectContaining({ code: 'SVC_VALIDATION' }),
    );
    const stopped: ReconcileRequest = {
      ...running,
      desired: { generation: 4, state: 'stopped', releaseId: null },
      artifact: null,
      rollback: { restoreData: false, fromReleaseId: null },
    };
    expect(() => checkReconcileRequest(stopped)).toThrow(expect.objectContaining({ code: 'SVC_VALIDATION' }));
  });

  it('is part of the agent operation (strict: an unknown field is still refused)', () => {
    const op = { kind: 'reconcile', id: 'op1', projectId: 'p1', fence: 1, desired: { generation: 1, state: 'running', releaseId: 'r1' }, artifactSha256: sha };
    expect(agentOperationSchema.safeParse({ ...op, rollback: { restoreData: true, fromReleaseId: 'r0' } }).success).toBe(true);
    expect(agentOperationSchema.safeParse({ ...op, rollback: { restoreData: true } }).success).toBe(false);
    expect(agentOperationSchema.safeParse({ ...op, restore: true }).success).toBe(false);
  });

  it('round-trips through the bridge headers; partial or off-shape headers are refused', () => {
    for (const intent of [
      { restoreData: true, fromReleaseId: 'rel_2' },
      { restoreData: false, fromReleaseId: null },
    ])
      expect(parseRollbackHeaders(rollbackHeaders(intent))).toEqual(intent);
    expect(parseRollbackHeaders({})).toBeNull();
    expect(() => parseRollbackHeaders({ [bridgeHeaders.rollback]: 'restore' })).toThrow(expect.objectContaining({ code: 'SVC_PROVIDER_REJECTED' }));
    expect(() => parseRollbackHeaders({ [bridgeHeaders.rollback]: 'all', [bridgeHeaders.rollbackFrom]: 'r1' })).toThrow(
      expect.objectContaining({ code: 'SVC_PROVIDER_REJECTED' }),
    );
    expect(() => parseRollbackHeaders({ [bridgeHeaders.rollback]: 'code', [bridgeHeaders.rollbackFrom]: ['r1', 'r2'] })).toThrow(
      expect.objectContaining({ code: 'SVC_PROVIDER_REJECTED' }),
    );
  });
});

describe('runReconcile keeps deploy outcome codes', () => {
  const failing = (error: unknown) => ({ kind: 't', reconcile: async () => Promise.reject(error) });
  it('passes health, migration and snapshot codes through; anything else becomes SVC_PROVIDER_FAILED', async () => {
    await expect(runReconcile(failing(new SvcError('SVC_HEALTH_CHECK_FAILED', 'secret detail')), running)).rejects.toMatchObject({
      code: 'SVC_HEALTH_CHECK_FAILED',
      message: expect.not.stringContaining('secret') as string,
    });
    await expect(runReconcile(failing(new SvcError('SVC_MIGRATION_FAILED', 'x')), running)).rejects.toMatchObject({ code: 'SVC_MIGRATION_FAILED' });
    await expect(runReconcile(failing(new SvcError('SVC_SNAPSHOT_MISSING', 'x')), running)).rejects.toMatchObject({ code: 'SVC_SNAPSHOT_MISSING' });
    await expect(runReconcile(failing(new SvcError('SVC_IO', 'x')), running)).rejects.toMatchObject({ code: 'SVC_PROVIDER_FAILED' });
    await expect(runReconcile(failing(new Error('boom')), running)).rejects.toMatchObject({ code: 'SVC_PROVIDER_FAILED' });
  });
});

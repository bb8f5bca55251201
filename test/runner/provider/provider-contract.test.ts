// Pure parts of the provider contract: request checks, fixed result, fence decisions, wire envelope.
import { describe, expect, it } from 'vitest';
import { SvcError } from '../../../src/core/errors.js';
import { checkBaseUrl, envelopeHeaders, isRetryableStatus, parseEnvelope, type BridgeEnvelope } from '../../../runner/provider/bridge-protocol.js';
import { decideFence, type FenceRecord } from '../../../runner/provider/fence-store.js';
import {
  checkReconcileRequest,
  reconcileResult,
  runReconcile,
  type ProviderArtifact,
  type ReconcileRequest,
} from '../../../runner/provider/provider-contract.js';

const sha = 'ab'.repeat(32);
const artifact = { bytes: Buffer.from('x'), sha256: sha, decoded: { digest: sha } } as unknown as ProviderArtifact;
const signal = new AbortController().signal;
const running: ReconcileRequest = {
  operation: { projectId: 'p1', id: 'op1', fence: 2 },
  desired: { generation: 3, state: 'running', releaseId: 'rel_1' },
  artifact,
  signal,
};
const stopped: ReconcileRequest = {
  operation: { projectId: 'p1', id: 'op2', fence: 3 },
  desired: { generation: 4, state: 'stopped', releaseId: null },
  artifact: null,
  signal,
};

describe('provider contract', () => {
  it('accepts running with release + artifact and stopped with neither; rejects the rest', () => {
    expect(() => checkReconcileRequest(running)).not.toThrow();
    expect(() => checkReconcileRequest(stopped)).not.toThrow();
    expect(() => checkReconcileRequest({ ...running, artifact: null })).toThrow(expect.objectContaining({ code: 'SVC_VALIDATION' }));
    expect(() => checkReconcileRequest({ ...stopped, desired: { ...stopped.desired, releaseId: 'rel_1' } })).toThrow(
      expect.objectContaining({ code: 'SVC_VALIDATION' }),
    );
    expect(() => checkReconcileRequest({ ...running, artifact: { ...artifact, sha256: 'cd'.repeat(32) } })).toThrow(
      expect.objectContaining({ code: 'SVC_ARTIFACT_DIGEST_MISMATCH' }),
    );
    expect(() => checkReconcileRequest({ ...running, desired: { ...running.desired, extra: 1 } as never })).toThrow(
      expect.objectContaining({ code: 'SVC_VALIDATION' }),
    );
    expect(() => checkReconcileRequest({ ...running, operation: { ...running.operation, projectId: '../x' } })).toThrow(
      expect.objectContaining({ code: 'SVC_VALIDATION' }),
    );
  });

  it('reports only the fixed result, never provider values or error details', async () => {
    expect(reconcileResult('k', running)).toEqual({ kind: 'k', generation: 3, releaseId: 'rel_1', state: 'running' });
    const ok = await runReconcile({ kind: 'k', reconcile: async () => ({ path: '/secret', token: 't' }) }, running);
    expect(ok).toEqual({ kind: 'k', generation: 3, releaseId: 'rel_1', state: 'running' });
    const seen: unknown[] = [];
    const failing = runReconcile({ kind: 'k', reconcile: async () => Promise.reject(new Error('/srv/secret')) }, running, (e) => seen.push(e));
    await expect(failing).rejects.toMatchObject({ code: 'SVC_PROVIDER_FAILED' });
    await expect(failing).rejects.not.toHaveProperty('message', expect.stringContaining('/srv/secret'));
    expect(seen).toHaveLength(1);
  });
});

describe('canary intent', () => {
  it('is only `true`, on a running request, and never together with a rollback', () => {
    expect(() => checkReconcileRequest({ ...running, canary: true })).not.toThrow();
    expect(() => checkReconcileRequest({ ...running, canary: false as never })).toThrow(expect.objectContaining({ code: 'SVC_VALIDATION' }));
    expect(() => checkReconcileRequest({ ...running, canary: 'yes' as never })).toThrow(expect.objectContaining({ code: 'SVC_VALIDATION' }));
    expect(() => checkReconcileRequest({ ...stopped, canary: true })).toThrow(expect.objectContaining({ code: 'SVC_VALIDATION' }));
    expect(() => checkReconcileRequest({ ...running, canary: true, rollback: { restoreData: false, fromReleaseId: null } })).toThrow(
      expect.objectContaining({ code: 'SVC_VALIDATION' }),
    );
  });

  it('a provider that does not declare supportsCanary refuses it before it runs (never a plain deploy)', async () => {
    const calls: ReconcileRequest[] = [];
    const old = { kind: 'old', reconcile: async (r: ReconcileRequest) => void calls.push(r) };
    await expect(runReconcile(old, { ...running, canary: true })).rejects.toMatchObject({ code: 'SVC_CANARY_PROVIDER_UNSUPPORTED' });
    expect(calls).toHaveLength(0);
    await expect(runReconcile({ ...old, supportsCanary: true }, { ...running, canary: true })).resolves.toEqual({
      kind: 'old',
      generation: 3,
      releaseId: 'rel_1',
      state: 'running',
    });
    expect(calls[0]!.canary).toBe(true);
    // The node's canary outcomes keep their stable codes (never the generic provider failure).
    for (const code of ['SVC_CANARY_PENDING_MIGRATIONS', 'SVC_CANARY_NO_BASELINE'] as const) {
      const refusing = { kind: 'k', supportsCanary: true, reconcile: async () => Promise.reject(new SvcError(code, 'detail')) };
      await expect(runReconcile(refusing, { ...running, canary: true })).rejects.toMatchObject({ code });
    }
  });
});

describe('decideFence', () => {
  const committed: FenceRecord = { projectId: 'p1', fence: 2, generation: 3, operationId: 'op1', status: 'committed' };
  it('runs new work, acknowledges a committed duplicate, retries pending work and rejects stale work', () => {
    expect(decideFence(null, running)).toBe('run');
    expect(decideFence(committed, running)).toBe('duplicate');
    expect(decideFence({ ...committed, status: 'pending' }, running)).toBe('run');
    expect(decideFence(committed, stopped)).toBe('run');
    expect(() => decideFence(committed, { ...running, operation: { ...running.operation, fence: 1 } })).toThrow(
      expect.objectContaining({ code: 'SVC_PROVIDER_STALE_FENCE' }),
    );
    expect(() => decideFence(committed, { ...running, operation: { ...running.operation, id: 'other' } })).toThrow(
      expect.objectContaining({ code: 'SVC_PROVIDER_STALE_FENCE' }),
    );
    expect(() => decideFence(committed, { ...running, operation: { ...running.operation, fence: 9 }, desired: { ...running.desired, generation: 2 } })).toThrow(
      expect.objectContaining({ code: 'SVC_PROVIDER_STALE_FENCE' }),
    );
  });
});

describe('bridge envelope', () => {
  const envelope: BridgeEnvelope = {
    projectId: 'p1',
    operationId: 'op1',
    fence: 2,
    attempt: 1,
    generation: 3,
    state: 'running',
    releaseId: 'rel_1',
    sha256: sha,
  };
  it('round-trips and bounds every header', () => {
    expect(parseEnvelope(envelopeHeaders(envelope))).toEqual(envelope);
    const stop = { ...envelope, state: 'stopped' as const, releaseId: null, sha256: null };
    expect(parseEnvelope(envelopeHeaders(stop))).toEqual(stop);
    for (const bad of [
      { ...envelopeHeaders(envelope), 'svc-fence': '01' },
      { ...envelopeHeaders(envelope), 'svc-project-id': 'x'.repeat(200) },
      { ...envelopeHeaders(envelope), 'svc-artifact-sha256': 'nothex' },
      { ...envelopeHeaders({ ...envelope, state: 'stopped' }) },
      { ...envelopeHeaders(envelope), 'svc-generation': '99999999999999999999' },
    ]) {
      expect(() => parseEnvelope(bad)).toThrow(expect.objectContaining({ code: 'SVC_PROVIDER_REJECTED' }));
    }
  });
  it('classifies retryable statuses and base URLs', () => {
    expect([408, 425, 429, 500, 503].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 404, 409, 422].some(isRetryableStatus)).toBe(false);
    expect(checkBaseUrl('http://127.0.0.1:9/').protocol).toBe('http:');
    expect(checkBaseUrl('http://[::1]:9/').protocol).toBe('http:');
    expect(() => checkBaseUrl('http://10.0.0.1/')).toThrow(expect.objectContaining({ code: 'SVC_RUNNER_CONFIG' }));
    expect(() => checkBaseUrl('https://u:p@h/')).toThrow(expect.objectContaining({ code: 'SVC_RUNNER_CONFIG' }));
  });
});

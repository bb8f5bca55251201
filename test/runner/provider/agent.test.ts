// openProviderDeploymentAgent against an in-memory coordinator (the control-plane side is not built):
// canonical operations only, artifact verified for running only, stale observation fails the operation.
import { describe, expect, it } from 'vitest';
import { openProviderDeploymentAgent, type AgentCoordinator, type AgentOperation } from '../../../runner/provider/open-provider-deployment-agent.js';
import type { DeploymentProvider, ReconcileRequest, ReconcileResult } from '../../../runner/provider/provider-contract.js';
import { packedFixture } from './provider-helpers.js';

const artifact = await packedFixture();

function coordinator(ops: unknown[], options: { stale?: boolean; bytes?: Buffer } = {}) {
  const log = { fetched: [] as string[], observed: [] as ReconcileResult[], failed: [] as [string, string][] };
  const c: AgentCoordinator = {
    next: async () => ops.shift() ?? null,
    fetchArtifact: async (op: AgentOperation) => {
      log.fetched.push(op.id);
      return options.bytes ?? artifact.bytes;
    },
    observe: async (_op, result) => {
      log.observed.push(result);
      return !options.stale;
    },
    fail: async (id, code) => void log.failed.push([id, code]),
  };
  return { c, log };
}
const provider = (): DeploymentProvider & { calls: ReconcileRequest[] } => {
  const calls: ReconcileRequest[] = [];
  return { kind: 'mem', calls, reconcile: async (r) => void calls.push(r) };
};
const runningOp = {
  kind: 'reconcile',
  id: 'op1',
  projectId: 'p1',
  fence: 1,
  desired: { generation: 1, state: 'running', releaseId: 'rel_1' },
  artifactSha256: artifact.sha256,
};
const stoppedOp = {
  kind: 'reconcile',
  id: 'op2',
  projectId: 'p1',
  fence: 2,
  desired: { generation: 2, state: 'stopped', releaseId: null },
  artifactSha256: null,
};

describe('openProviderDeploymentAgent', () => {
  it('reconciles running (fetching + verifying the artifact) and stopped (no fetch), reporting the generation', async () => {
    const { c, log } = coordinator([runningOp, stoppedOp]);
    const p = provider();
    const agent = openProviderDeploymentAgent({ coordinator: c, provider: p, autoStart: false });
    expect(await agent.runOnce()).toBe('observed');
    expect(await agent.runOnce()).toBe('observed');
    expect(await agent.runOnce()).toBe('idle');
    expect(log.fetched).toEqual(['op1']);
    expect(log.observed).toEqual([
      { kind: 'mem', generation: 1, releaseId: 'rel_1', state: 'running' },
      { kind: 'mem', generation: 2, releaseId: null, state: 'stopped' },
    ]);
    expect(p.calls[0]!.artifact!.decoded.digest).toBe(artifact.sha256);
    expect(p.calls[1]!.artifact).toBeNull();
  });

  it('refuses non-canonical operations and extra desired fields; fails on digest mismatch and stale observation', async () => {
    const p = provider();
    const bad = [
      { ...runningOp, kind: 'exec' },
      { ...runningOp, desired: { ...runningOp.desired, command: 'rm -rf /' } },
      { ...stoppedOp, artifactSha256: artifact.sha256 },
    ];
    const { c, log } = coordinator([...bad]);
    const agent = openProviderDeploymentAgent({ coordinator: c, provider: p, autoStart: false });
    for (let i = 0; i < bad.length; i++) expect(await agent.runOnce()).toBe('refused');
    expect(p.calls).toHaveLength(0);
    expect(log.failed.map(([, code]) => code)).toEqual(['SVC_VALIDATION', 'SVC_VALIDATION', 'SVC_VALIDATION']);

    const tampered = coordinator([runningOp], { bytes: Buffer.concat([artifact.bytes, Buffer.from('x')]) });
    expect(await openProviderDeploymentAgent({ coordinator: tampered.c, provider: p, autoStart: false }).runOnce()).toBe('failed');
    expect(tampered.log.failed).toEqual([['op1', 'SVC_ARTIFACT_DIGEST_MISMATCH']]);
    expect(p.calls).toHaveLength(0);

    const stale = coordinator([stoppedOp], { stale: true });
    expect(await openProviderDeploymentAgent({ coordinator: stale.c, provider: p, autoStart: false }).runOnce()).toBe('failed');
    expect(stale.log.failed).toEqual([['op2', 'SVC_PROVIDER_STALE_FENCE']]);
  });

  it("passes a running operation's canary intent to the provider; refuses it on a stopped one or off-shape", async () => {
    const p = { ...provider(), supportsCanary: true };
    const { c, log } = coordinator([
      { ...runningOp, canary: true },
      { ...stoppedOp, canary: true },
      { ...runningOp, id: 'op3', canary: false },
    ]);
    const agent = openProviderDeploymentAgent({ coordinator: c, provider: p, autoStart: false });
    expect(await agent.runOnce()).toBe('observed');
    expect(await agent.runOnce()).toBe('refused');
    expect(await agent.runOnce()).toBe('refused');
    expect(p.calls).toHaveLength(1);
    expect(p.calls[0]!.canary).toBe(true);
    expect(log.failed).toEqual([
      ['op2', 'SVC_VALIDATION'],
      ['op3', 'SVC_VALIDATION'],
    ]);

    // A provider without canaries fails the operation with a stable code and is never called.
    const old = provider();
    const refused = coordinator([{ ...runningOp, canary: true }]);
    expect(await openProviderDeploymentAgent({ coordinator: refused.c, provider: old, autoStart: false }).runOnce()).toBe('failed');
    expect(refused.log.failed).toEqual([['op1', 'SVC_CANARY_PROVIDER_UNSUPPORTED']]);
    expect(old.calls).toHaveLength(0);
  });

  it('drains: close() waits for the running operation', async () => {
    let finish!: () => void;
    const slow: DeploymentProvider = { kind: 'slow', reconcile: () => new Promise<void>((r) => (finish = r)) };
    const { c, log } = coordinator([stoppedOp]);
    const agent = openProviderDeploymentAgent({ coordinator: c, provider: slow, idleMs: 10 });
    await new Promise((r) => setTimeout(r, 50));
    const closing = agent.close();
    finish();
    await closing;
    expect(log.observed).toHaveLength(1);
  });
});

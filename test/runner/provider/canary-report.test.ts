// What a node reports of a staged canary: the provider's running() carries it and the heartbeat sends
// it beside the baseline (both advertised); the observation of a canary operation locates the candidate.
import { describe, expect, it } from 'vitest';
import { nodeReporter } from '../../../runner/agent/run-agent.js';
import type { AgentOperation } from '../../../runner/provider/open-provider-deployment-agent.js';
import type { DeploymentProvider, ProjectRunState } from '../../../runner/provider/provider-contract.js';

describe('node report of a staged canary', () => {
  const states: ProjectRunState[] = [
    {
      projectId: 'prj_1',
      generation: 1,
      state: 'running',
      releaseId: 'rel_1',
      upstream: { host: '127.0.0.1', port: 4100 },
      canary: { generation: 2, releaseId: 'rel_2', upstream: { host: '127.0.0.1', port: 4101 } },
    },
  ];
  const provider: DeploymentProvider = { kind: 'local-process', supportsCanary: true, reconcile: async () => undefined, running: async () => states };

  it('the heartbeat carries the baseline and the canary, both advertised', async () => {
    const report = await nodeReporter(provider, '10.0.0.5').report!();
    expect(report).toEqual({
      provider: 'local-process',
      projects: [
        {
          projectId: 'prj_1',
          generation: 1,
          state: 'running',
          releaseId: 'rel_1',
          upstream: { host: '10.0.0.5', port: 4100 },
          canary: { generation: 2, releaseId: 'rel_2', upstream: { host: '10.0.0.5', port: 4101 } },
        },
      ],
    });
  });

  it('a canary operation is located at its candidate, only for its own generation and release', async () => {
    const op = (generation: number, releaseId: string, canary: boolean): AgentOperation => ({
      kind: 'reconcile',
      id: 'op_1',
      projectId: 'prj_1',
      fence: 1,
      desired: { generation, state: 'running', releaseId },
      artifactSha256: 'a'.repeat(64),
      ...(canary ? { canary: true as const } : {}),
    });
    const { locate } = nodeReporter(provider, undefined);
    expect(await locate!(op(2, 'rel_2', true))).toEqual({ host: '127.0.0.1', port: 4101 });
    expect(await locate!(op(3, 'rel_2', true))).toBeUndefined();
    expect(await locate!(op(2, 'rel_2', false))).toBeUndefined();
    expect(await locate!(op(1, 'rel_1', false))).toEqual({ host: '127.0.0.1', port: 4100 });
  });
});

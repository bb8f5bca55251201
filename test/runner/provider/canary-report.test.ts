// What a node reports of a staged canary: the provider's running() carries it, but the heartbeat sends
// only the fields the control plane's report schema accepts (it refuses unknown ones) until the
// control plane reads canaries from nodes.
import { describe, expect, it } from 'vitest';
import { nodeReporter } from '../../../runner/agent/run-agent.js';
import type { DeploymentProvider, ProjectRunState } from '../../../runner/provider/provider-contract.js';

describe('node report of a staged canary', () => {
  it('the heartbeat carries the baseline (advertised) and leaves the canary out', async () => {
    const states: ProjectRunState[] = [
      { projectId: 'prj_1', generation: 1, state: 'running', releaseId: 'rel_1', upstream: { host: '127.0.0.1', port: 4100 }, canary: { generation: 2, releaseId: 'rel_2', upstream: { host: '127.0.0.1', port: 4101 } } },
    ];
    const provider: DeploymentProvider = { kind: 'local-process', supportsCanary: true, reconcile: async () => undefined, running: async () => states };
    const report = await nodeReporter(provider, '10.0.0.5').report!();
    expect(report).toEqual({ provider: 'local-process', projects: [{ projectId: 'prj_1', generation: 1, state: 'running', releaseId: 'rel_1', upstream: { host: '10.0.0.5', port: 4100 } }] });
  });
});

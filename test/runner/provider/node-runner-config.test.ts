// The runner a node's supervisors build, as a table over the environment: sandboxed unless SVC_SANDBOX=off.
import { describe, expect, it } from 'vitest';
import { defaultSandboxLimits } from '../../../runner/sandbox/bwrap-args.js';
import { nodeRunnerConfig } from '../../../runner/node-runner-config.js';

const dataDir = '/var/lib/svc-runner';
const common = { runsDir: '/var/lib/svc-runner/runs', logsDir: '/var/lib/svc-runner/logs' };

describe('nodeRunnerConfig', () => {
  it.each([
    [
      'the default: a sandbox',
      {},
      {
        config: { kind: 'sandbox', ...common, network: 'isolated', limits: defaultSandboxLimits, traversableRoots: [dataDir] },
        uidBase: undefined,
        warning: null,
      },
    ],
    ['SVC_RUNNER=process is the sandbox too', { SVC_RUNNER: 'process' }, { config: { kind: 'sandbox' }, warning: null }],
    [
      'sandbox settings travel to the supervisors',
      {
        SVC_SANDBOX_NETWORK: 'shared',
        SVC_SANDBOX_MEMORY: '256m',
        SVC_SANDBOX_PROCESSES: '64',
        SVC_SANDBOX_BWRAP: '/opt/bwrap',
        SVC_SANDBOX_UID_BASE: '300000',
      },
      {
        config: {
          kind: 'sandbox',
          network: 'shared',
          limits: { ...defaultSandboxLimits, memoryBytes: 256 * 1024 * 1024, processes: 64 },
          bwrapPath: '/opt/bwrap',
        },
        uidBase: 300_000,
      },
    ],
    [
      'SVC_SANDBOX=off: unsandboxed, with a warning',
      { SVC_SANDBOX: 'off' },
      { config: { kind: 'process', ...common }, warning: expect.stringContaining('unsandboxed') as unknown },
    ],
    [
      'containers ignore the sandbox settings',
      { SVC_RUNNER: 'container', SVC_SANDBOX: 'off' },
      { config: { kind: 'container', ...common, image: 'localhost/svc-node:20' }, warning: null },
    ],
  ] as const)('%s', (_name, env, expected) => {
    expect(nodeRunnerConfig(env, dataDir)).toMatchObject(expected);
  });

  it.each([
    ['an unknown runner', { SVC_RUNNER: 'vm' }, 'SVC_RUNNER_CONFIG'],
    ['an unknown sandbox switch', { SVC_SANDBOX: 'maybe' }, 'SVC_SANDBOX_CONFIG'],
    ['a relative bubblewrap path', { SVC_SANDBOX_BWRAP: 'bwrap' }, 'SVC_SANDBOX_CONFIG'],
  ] as const)('refuses %s', (_name, env, code) => {
    expect(() => nodeRunnerConfig(env, dataDir)).toThrow(expect.objectContaining({ code }));
  });
});

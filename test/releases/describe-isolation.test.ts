// describeIsolation: the SVC_* settings pick the mode, the sandbox runner's status says whether it works.
import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { describeIsolation, SHARED_NETWORK_WARNING, UNSANDBOXED_WARNING } from '../../src/releases/describe-isolation.js';
import { isolationSchema, isolationSummary, type Isolation } from '../../src/releases/contract.js';
import type { SandboxStatus } from '../../runner/sandbox-status.js';

const working: SandboxStatus = { available: true, network: 'isolated', perProjectUid: true, problem: null };
const broken: SandboxStatus = {
  available: false,
  network: 'isolated',
  perProjectUid: true,
  problem: { code: 'SVC_SANDBOX_UNAVAILABLE', message: 'The app sandbox needs bwrap (package bubblewrap), which this host lacks.' },
};

const table: { name: string; env: Record<string, string>; status?: SandboxStatus; expected: Isolation }[] = [
  {
    name: 'default, sandbox works, as root',
    env: {},
    status: working,
    expected: { mode: 'sandbox', network: 'isolated', perProjectUid: true, available: true, problem: null },
  },
  {
    name: 'default, not root',
    env: {},
    status: { ...working, perProjectUid: false },
    expected: { mode: 'sandbox', network: 'isolated', perProjectUid: false, available: true, problem: null },
  },
  {
    name: 'default, not probed',
    env: { SVC_SANDBOX: 'on' },
    expected: { mode: 'sandbox', network: 'isolated', perProjectUid: false, available: true, problem: null },
  },
  {
    name: 'shared network',
    env: { SVC_SANDBOX_NETWORK: 'shared' },
    status: { ...working, network: 'shared' },
    expected: { mode: 'sandbox', network: 'shared', perProjectUid: true, available: true, problem: null, warning: SHARED_NETWORK_WARNING },
  },
  {
    name: 'SVC_SANDBOX=off',
    env: { SVC_SANDBOX: 'off' },
    status: working,
    expected: { mode: 'unsandboxed', network: 'shared', perProjectUid: false, available: true, problem: null, warning: UNSANDBOXED_WARNING },
  },
  {
    name: 'SVC_RUNNER=process SVC_SANDBOX=off',
    env: { SVC_RUNNER: 'process', SVC_SANDBOX: 'off' },
    expected: { mode: 'unsandboxed', network: 'shared', perProjectUid: false, available: true, problem: null, warning: UNSANDBOXED_WARNING },
  },
  {
    name: 'SVC_RUNNER=container (sandbox settings do not apply)',
    env: { SVC_RUNNER: 'container', SVC_SANDBOX: 'off' },
    expected: { mode: 'container', network: 'isolated', perProjectUid: false, available: true, problem: null },
  },
  {
    name: 'SVC_DRIVER=swarm (local runner settings do not apply)',
    env: { SVC_DRIVER: 'swarm', SVC_SWARM_ENDPOINT: 'http://10.0.0.1:7071', SVC_SANDBOX: 'off' },
    expected: { mode: 'swarm', network: 'isolated', perProjectUid: false, available: true, problem: null },
  },
];

describe('describeIsolation', () => {
  it.each(table)('$name', ({ env, status, expected }) => {
    const isolation = describeIsolation(env, status);
    expect(isolation).toEqual(expected);
    expect(isolationSchema.parse(isolation)).toEqual(isolation);
  });

  it('says apps cannot start when the sandbox is unavailable, with the code and the install hint', () => {
    const isolation = describeIsolation({}, broken);
    expect(isolation).toMatchObject({ mode: 'sandbox', available: false, problem: broken.problem });
    expect(isolation.warning).toContain('apps cannot start: The app sandbox needs bwrap');
    expect(isolation.warning).toContain('(SVC_SANDBOX_UNAVAILABLE)');
    expect(isolation.warning).toContain('apt-get install -y bubblewrap slirp4netns');
    expect(isolationSummary(isolation)).toBe(isolation.warning);
  });

  it('refuses invalid settings with the same codes as building the runner', () => {
    for (const [env, code] of [
      [{ SVC_SANDBOX: 'maybe' }, 'SVC_SANDBOX_CONFIG'],
      [{ SVC_RUNNER: 'vm' }, 'SVC_RUNNER_CONFIG'],
      [{ SVC_DRIVER: 'swarm' }, 'SVC_SWARM_CONFIG'],
      [{ SVC_DRIVER: 'k8s' }, 'SVC_SWARM_CONFIG'],
    ] as const) {
      let thrown: unknown;
      try {
        describeIsolation(env);
      } catch (error) {
        thrown = error;
      }
      expect(isSvcError(thrown, code), code).toBe(true);
    }
  });

  it('summarises isolated modes in one line', () => {
    expect(isolationSummary(describeIsolation({}, working))).toBe('apps run in a bubblewrap sandbox each, isolated network, a uid per project');
    expect(isolationSummary(describeIsolation({ SVC_RUNNER: 'container' }))).toBe('apps run in podman containers, each project on its own network');
  });
});

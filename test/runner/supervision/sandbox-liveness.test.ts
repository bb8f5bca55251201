// Pure sandbox liveness as a table: what /proc says about the recorded launcher and init → alive, and what to SIGKILL.
import { describe, expect, it } from 'vitest';
import { decideSandboxRuntime, type SandboxObservation, type SandboxRuntime } from '../../../runner/supervision/sandbox-liveness.js';

const runtime: SandboxRuntime = { kind: 'sandbox', launcherPgid: 100, launcherStartTime: '5', initPid: 200, initStartTime: '6' };
const obs = (launcher: SandboxObservation['launcher'], launcherGroupMembers: boolean, init: SandboxObservation['init']): SandboxObservation => ({
  launcher,
  launcherGroupMembers,
  init,
});
const INIT = { pid: 200, group: false };
const GROUP = { pid: 100, group: true };

describe('decideSandboxRuntime', () => {
  it.each([
    ['launcher and init running', obs('alive', false, 'alive'), { alive: true, kill: [INIT, GROUP] }],
    ['init ended, launcher still waiting', obs('alive', false, 'dead'), { alive: true, kill: [GROUP] }],
    ['launcher killed, init still running', obs('dead', false, 'alive'), { alive: true, kill: [INIT] }],
    ['launcher dead, members of its group remain', obs('dead', true, 'dead'), { alive: true, kill: [GROUP] }],
    ['both ended', obs('dead', false, 'dead'), { alive: false, kill: [] }],
    ['both pids reused by strangers', obs('reused', true, 'reused'), { alive: false, kill: [] }],
    ['init pid reused, launcher alive', obs('alive', false, 'reused'), { alive: true, kill: [GROUP] }],
    ['launcher pid reused, init alive', obs('reused', false, 'alive'), { alive: true, kill: [INIT] }],
    ['no start times recorded (both had ended)', obs('unrecorded', true, 'unrecorded'), { alive: false, kill: [] }],
    ['init unrecorded, launcher alive', obs('alive', false, 'unrecorded'), { alive: true, kill: [GROUP] }],
  ] as const)('%s', (_name, observation, expected) => {
    expect(decideSandboxRuntime(runtime, observation)).toEqual(expected);
  });
});

// Pure supervision decisions as tables: fence state + observation → action, lease wait, supervisor stop cause.
import { describe, expect, it } from 'vitest';
import { decideFenceRecovery, decideSupervision, planLeaseWait, type FenceObservation } from '../../../runner/supervision/fence-decisions.js';
import type { FenceFile } from '../../../runner/supervision/fence-file.js';
import { decidePendingDeploy } from '../../../runner/provider/deploy-safety.js';

const fence = (holder: string, expiresAt: number, runtime: FenceFile['runtime'] = { kind: 'process', pgid: 11, startTime: '2' }): FenceFile => ({
  version: 1,
  projectId: 'prj_1',
  runId: 'run_1',
  releaseId: 'rel_1',
  supervisor: { pid: 10, startTime: '1' },
  runtime,
  lease: { holder, expiresAt },
  updatedAt: 0,
});
const sandboxed = (holder: string, expiresAt: number): FenceFile =>
  fence(holder, expiresAt, { kind: 'sandbox', launcherPgid: 11, launcherStartTime: '2', initPid: 12, initStartTime: '3' });
const obs = (supervisorAlive: boolean, runtimeAlive: boolean | 'unknown'): FenceObservation => ({ supervisorAlive, runtimeAlive });

describe('decideFenceRecovery', () => {
  const now = 1000;
  it.each([
    ['unreadable fence', null, obs(false, false), { action: 'refuse', reason: 'unreadable' }],
    ['own fence, live supervisor', fence('me', 0), obs(true, true), { action: 'own' }],
    ['own fence, supervisor killed, orphaned app', fence('me', 99_000), obs(false, true), { action: 'terminate', supervisor: false, runtime: true }],
    ['own fence, supervisor killed, app gone', fence('me', 99_000), obs(false, false), { action: 'clear' }],
    ['lease still valid, everything alive', fence('old', 1500), obs(true, true), { action: 'wait', ms: 500 }],
    ['lease still valid, everything gone', fence('old', 1001), obs(false, false), { action: 'wait', ms: 1 }],
    ['lease expired, supervisor and app alive', fence('old', 1000), obs(true, true), { action: 'terminate', supervisor: true, runtime: true }],
    ['lease expired, orphaned app', fence('old', 900), obs(false, true), { action: 'terminate', supervisor: false, runtime: true }],
    ['lease expired, supervisor still verifying', fence('old', 900), obs(true, false), { action: 'terminate', supervisor: true, runtime: false }],
    ['lease expired, container state unknown', fence('old', 900), obs(false, 'unknown'), { action: 'refuse', reason: 'runtime-unknown' }],
    ['lease expired, verified gone', fence('old', 900), obs(false, false), { action: 'clear' }],
    [
      'sandbox, own fence, supervisor killed, orphaned sandbox',
      sandboxed('me', 99_000),
      obs(false, true),
      { action: 'terminate', supervisor: false, runtime: true },
    ],
    ['sandbox, lease still valid', sandboxed('old', 1500), obs(true, true), { action: 'wait', ms: 500 }],
    ['sandbox, lease expired, supervisor and sandbox alive', sandboxed('old', 900), obs(true, true), { action: 'terminate', supervisor: true, runtime: true }],
    ['sandbox, lease expired, init and launcher verified gone', sandboxed('old', 900), obs(false, false), { action: 'clear' }],
    ['sandbox still being spawned (no runtime yet), supervisor gone', fence('old', 900, null), obs(false, false), { action: 'clear' }],
  ] as const)('%s', (_name, f, o, expected) => {
    expect(decideFenceRecovery(f, o, now, 'me')).toEqual(expected);
  });
});

describe('planLeaseWait', () => {
  it.each([
    ['no fences', [], 0],
    ['only own fences', [fence('me', 99_000)], 0],
    ['expired foreign lease', [fence('old', 500)], 0],
    ['latest foreign lease wins', [fence('old', 3000), fence('older', 9000), null], 8000],
    ['bounded by the maximum wait', [fence('old', 100_000)], 30_000],
  ] as const)('%s', (_name, fences, expected) => {
    expect(planLeaseWait(fences, 1000, 'me', 30_000)).toBe(expected);
  });
});

describe('decideSupervision', () => {
  const base = { connected: true, leaseExpiresAt: 2000, appExited: false, stopRequested: false };
  it.each([
    ['healthy and leased', base, 1000, null],
    ['control connection lost', { ...base, connected: false }, 1000, 'control-lost'],
    ['lease not renewed', base, 2000, 'lease-expired'],
    ['app exited', { ...base, appExited: true }, 1000, 'app-exited'],
    ['stop requested wins', { ...base, stopRequested: true, connected: false }, 5000, 'stop-requested'],
    ['lost control wins over expiry', { ...base, connected: false }, 5000, 'control-lost'],
  ] as const)('%s', (_name, state, now, expected) => {
    expect(decideSupervision(state, now)).toBe(expected);
  });
});

describe('decidePendingDeploy', () => {
  const pending = { candidateReleaseId: 'rel_2', snapshotPath: '/s', databasePath: '/d', at: 0 };
  it.each([
    ['no record', 'rel_1', null, 'none'],
    ['crash before the switch', 'rel_1', pending, 'restore'],
    ['crash before the first switch', null, pending, 'restore'],
    ['crash after the switch', 'rel_2', pending, 'forget'],
  ] as const)('%s', (_name, activeId, record, expected) => {
    expect(decidePendingDeploy(activeId, record)).toBe(expected);
  });
});

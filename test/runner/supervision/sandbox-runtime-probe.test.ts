// The fence-runtime effects for kind 'sandbox': runtimeAlive / killRuntime / killAndVerify against a real
// orphaned sandbox (nobody watching it), and against live strangers at recorded pids (never signalled).
import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkProcess, processStartTime } from '../../../src/core/process-identity.js';
import { LogStore } from '../../../runner/log-store.js';
import { createSandboxRunner, readSandboxSettings } from '../../../runner/sandbox/sandbox-settings.js';
import { defaultSandboxLimits } from '../../../runner/sandbox/bwrap-args.js';
import type { FenceRuntime } from '../../../runner/supervision/fence-file.js';
import { killAndVerify, killRuntime, runtimeAlive } from '../../../runner/supervision/runtime-probe.js';
import { startedRuntime } from '../../../runner/supervision/runtime-supervisor.js';
import { requireComponents } from '../../support/require-components.js';
import { appSpec, eventually, makeRoot } from '../runner-helpers.js';
import { checkHealth } from '../../../runner/health-check.js';
import { sandboxComponents, waitFor } from './supervision-helpers.js';

const gate = requireComponents('sandbox fence runtime', sandboxComponents);

describe.skipIf(gate.skip)('fence runtime of a real sandbox', () => {
  let root = '';
  beforeAll(() => gate.assertPresent());
  afterAll(() => (root ? rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }) : undefined));

  it('an orphaned sandbox is alive until killRuntime ends init and the launcher group; its network helper follows', async () => {
    const made = await makeRoot();
    root = made.root;
    const uid = process.getuid?.() === 0 ? 222_000 : undefined;
    const runner = createSandboxRunner(readSandboxSettings({}), {
      runsDir: join(root, 'runs'),
      logs: new LogStore({ dir: join(root, 'logs') }),
      ids: () => 'run_probe',
      ...(uid === undefined ? {} : { uidFor: () => uid }),
    });
    const app = await runner.start(appSpec(root, made.releaseDir));
    await eventually(async () => (await checkHealth({ host: app.host, port: app.port, path: '/healthz', timeoutMs: 500 }).catch(() => null))?.ok, 15_000);
    expect(app.id).toBe('run_probe');
    const config = { kind: 'sandbox', runsDir: join(root, 'runs'), logsDir: join(root, 'logs'), network: 'isolated', limits: defaultSandboxLimits } as const;
    const runtime = startedRuntime(config, app)!;
    const sandbox = app.record().sandbox!;
    // Nobody watches it any more: only the fence runtime knows it.
    app.detach();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await runtimeAlive(runtime)).toBe(true);

    await killRuntime(runtime);
    await waitFor(async () => (await runtimeAlive(runtime)) === false, 5000, 'sandbox gone');
    expect(checkProcess(sandbox.initPid, sandbox.initStartTime)).not.toBe('alive');
    expect(checkProcess(app.record().pid!, app.record().processStartTime ?? null)).not.toBe('alive');
    await waitFor(() => checkProcess(sandbox.netPid!, sandbox.netStartTime ?? null) !== 'alive', 5000, 'network helper exited with the sandbox');
    await expect(fetch(`http://${app.host}:${app.port}/healthz`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
  }, 40_000);
});

describe('fence runtime of kind sandbox: process identity', () => {
  const children: ChildProcess[] = [];
  const idle = async (): Promise<number> => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
    children.push(child);
    await new Promise((resolve) => child.once('spawn', resolve));
    return child.pid!;
  };
  const alive = (pid: number) => checkProcess(pid, null) === 'alive';
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });

  it('never signals a pid whose start time differs or was not recorded, and ends the recorded ones', async () => {
    const launcher = await idle();
    const init = await idle();
    const strangers: FenceRuntime[] = [
      { kind: 'sandbox', launcherPgid: launcher, launcherStartTime: '1', initPid: init, initStartTime: '1' },
      { kind: 'sandbox', launcherPgid: launcher, launcherStartTime: null, initPid: init, initStartTime: null },
    ];
    for (const runtime of strangers) {
      expect(await runtimeAlive(runtime)).toBe(false);
      await killRuntime(runtime);
      expect(await killAndVerify(runtime, { timeoutMs: 1000 })).toBe(true);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(launcher) && alive(init)).toBe(true);

    const recorded: FenceRuntime = {
      kind: 'sandbox',
      launcherPgid: launcher,
      launcherStartTime: processStartTime(launcher),
      initPid: init,
      initStartTime: processStartTime(init),
    };
    expect(await runtimeAlive(recorded)).toBe(true);
    expect(await killAndVerify(recorded, { timeoutMs: 5000 })).toBe(true);
    expect(alive(launcher) || alive(init)).toBe(false);
  });

  it('a launcher group outliving its leader keeps the sandbox alive', async () => {
    // The leader exits at once; its child (same group) stays.
    const leader = spawn(
      process.execPath,
      ['-e', "require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }).unref()"],
      { detached: true, stdio: 'ignore' },
    );
    children.push(leader);
    await new Promise((resolve) => leader.once('spawn', resolve));
    const pgid = leader.pid!;
    const startTime = processStartTime(pgid);
    await new Promise((resolve) => leader.once('exit', resolve));
    const runtime: FenceRuntime = { kind: 'sandbox', launcherPgid: pgid, launcherStartTime: startTime, initPid: 999_999, initStartTime: '1' };
    expect(await runtimeAlive(runtime)).toBe(true);
    expect(await killAndVerify(runtime, { timeoutMs: 5000 })).toBe(true);
  });
});

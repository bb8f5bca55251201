// fixtures/apps: each sample app passes doctor and packs; the ones that start behave as named.
import { spawn, type ChildProcess } from 'node:child_process';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from './run-cli.js';

const APPS = ['healthy', 'healthy-v2', 'crash-on-boot', 'failing-health', 'bad-migration', 'slow-start'] as const;
const MIGRATIONS: Record<string, string[]> = {
  'healthy-v2': ['migrations/0001_init.sql', 'migrations/0002_add_done.sql'],
  'bad-migration': ['migrations/0001_init.sql', 'migrations/0002_broken.sql'],
};

let root: string;
let cleanup: () => Promise<void>;
const children: ChildProcess[] = [];

beforeAll(async () => {
  ({ dir: root, cleanup } = await tempDir('svc-fixtures-'));
  for (const app of APPS) await cp(join(ROOT, 'fixtures', 'apps', app), join(root, app), { recursive: true, filter: (src) => !/[/\\](dist|\.svc)$/.test(src) });
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});
afterAll(() => cleanup());

describe('fixture apps', () => {
  it.each(APPS)('%s passes doctor --build and packs its server and migrations', async (app) => {
    const dir = join(root, app);
    const doctor = await runCli(['doctor', '--build', '--json'], { cwd: dir });
    expect(doctor.code, doctor.stdout).toBe(0);
    const packed = (await runCli(['deploy', '--dry-run', '--no-build', '--json'], { cwd: dir })).json<{ path: string }>();
    const inspected = (await runCli(['inspect', packed.path, '--json'], { cwd: dir })).json<{
      files: Array<{ path: string }>;
      config: { health: { path: string; timeoutMs: number } };
    }>();
    expect(inspected.files.map((f) => f.path)).toEqual(['dist/server.mjs', ...(MIGRATIONS[app] ?? ['migrations/0001_init.sql'])]);
    expect(inspected.config.health).toEqual({ path: '/healthz', timeoutMs: app === 'slow-start' ? 1000 : 10_000 });
  });

  /** Start a built fixture as the platform would (node <entry>, PORT 0 on loopback). */
  function start(app: string, env: Record<string, string> = {}): { child: ChildProcess; url: Promise<string>; exit: Promise<number | null> } {
    const child = spawn(process.execPath, [join(root, app, 'dist', 'server.mjs')], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'production', SVC_RELEASE_ID: 'rel_test', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const url = new Promise<string>((resolve) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (match?.[1]) resolve(match[1]);
      });
    });
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, url, exit };
  }

  it('healthy answers /healthz with 200 and version 1; healthy-v2 reports version 2', async () => {
    const v1 = start('healthy');
    const res = await fetch(`${await v1.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, version: 1 });
    expect(await (await fetch(`${await v1.url}/`)).json()).toEqual({ app: 'healthy', version: 1, release: 'rel_test' });
    const v2 = start('healthy-v2');
    expect(await (await fetch(`${await v2.url}/healthz`)).json()).toEqual({ ok: true, version: 2 });
    // Without SVC_DATABASE_PATH the data routes say so instead of writing into the release directory.
    expect((await fetch(`${await v1.url}/notes`)).status).toBe(503);
    v1.child.kill('SIGTERM');
    expect(await v1.exit).toBe(0);
  });

  it('failing-health listens but answers /healthz with 500', async () => {
    const app = start('failing-health');
    expect((await fetch(`${await app.url}/healthz`)).status).toBe(500);
  });

  it('crash-on-boot exits with status 1 without listening', async () => {
    expect(await start('crash-on-boot').exit).toBe(1);
  });

  it('slow-start listens only after SLOW_START_DELAY_MS', async () => {
    const began = Date.now();
    const app = start('slow-start', { SLOW_START_DELAY_MS: '700' });
    await app.url;
    expect(Date.now() - began).toBeGreaterThanOrEqual(650);
  });
});

// App isolation as the operator sees it: the start-up log line, GET /readyz (503 when apps cannot
// start) and GET /api/isolation, for the default sandbox, SVC_SANDBOX=off and a broken sandbox.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/clock.js';
import { testPlatformConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { buildControlPlane, type ControlPlane } from '../../src/platform.js';
import { isolationResponseSchema } from '../../src/releases/contract.js';
import { commandComponent, requireComponents } from '../support/require-components.js';
import { ORIGIN, register, START } from './harness.js';

const gate = requireComponents('default sandbox in /readyz', [
  commandComponent('bubblewrap', ['bwrap', '--version']),
  commandComponent('slirp4netns', ['slirp4netns', '--version']),
]);
const asRoot = process.getuid?.() === 0;

interface Started {
  plane: ControlPlane;
  base: string;
  /** Log lines about isolation written while the plane was built. */
  isolationLines: { level: number; msg: string; code?: string }[];
}

const running: { plane: ControlPlane; dir: string }[] = [];
afterEach(async () => {
  for (const { plane, dir } of running.splice(0)) {
    await plane.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A real control plane with `env` on a real listener (port 0), its log captured. */
async function start(env: Record<string, string>): Promise<Started> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-isolation-'));
  const lines: { level: number; msg: string; code?: string; isolation?: unknown }[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) } });
  const plane = await buildControlPlane({
    config: testPlatformConfig({ dataDir: join(dir, 'data'), publicUrl: ORIGIN, env }),
    clock: manualClock(START),
    logger,
  });
  running.push({ plane, dir });
  await plane.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = plane.app.server.address() as { port: number };
  return { plane, base: `http://127.0.0.1:${port}`, isolationLines: lines.filter((l) => l.isolation !== undefined) };
}

async function readyz(
  base: string,
  path = '/readyz',
): Promise<{ status: number; body: Record<string, unknown> & { checks: Record<string, string>; isolation: Record<string, unknown> } }> {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: (await res.json()) as never };
}

describe.skipIf(gate.skip)('the default: a bubblewrap sandbox', () => {
  beforeAll(() => gate.assertPresent());

  it('is ready, says so in /readyz and logs it once at info level', async () => {
    const { base, isolationLines } = await start({});
    const { status, body } = await readyz(base);
    expect(status).toBe(200);
    expect(body).toEqual({
      status: 'ok',
      checks: { database: 'ok', dataDir: 'ok', isolation: 'ok' },
      isolation: { mode: 'sandbox', network: 'isolated', perProjectUid: asRoot, available: true, problem: null },
    });
    expect(isolationLines).toHaveLength(1);
    expect(isolationLines[0]).toMatchObject({ level: 30, msg: expect.stringContaining('bubblewrap sandbox') });
  });
});

describe('SVC_SANDBOX=off', () => {
  it('is ready but reports unsandboxed apps with the warning, in /readyz, the API and a warn log line', async () => {
    const { plane, base, isolationLines } = await start({ SVC_SANDBOX: 'off' });
    const expected = {
      mode: 'unsandboxed',
      network: 'shared',
      perProjectUid: false,
      available: true,
      problem: null,
      warning: 'apps run WITHOUT isolation (SVC_SANDBOX=off) — only for apps you trust',
    };
    for (const path of ['/readyz', '/healthz', '/_svc/readyz']) {
      const { status, body } = await readyz(base, path);
      expect(status, path).toBe(200);
      expect(body, path).toEqual({ status: 'ok', checks: { database: 'ok', dataDir: 'ok', isolation: 'ok' }, isolation: expected });
    }
    expect(isolationLines).toEqual([expect.objectContaining({ level: 40, msg: expected.warning })]);

    // The API answers only signed-in users and tokens.
    expect((await fetch(`${base}/api/isolation`)).status).toBe(401);
    const browser = await register(plane.app, 'owner@example.com');
    const res = await fetch(`${base}/api/isolation`, { headers: { cookie: browser.cookie } });
    expect(res.status).toBe(200);
    expect(isolationResponseSchema.parse(await res.json())).toEqual({ isolation: expected });
  });
});

describe('a broken sandbox (SVC_SANDBOX_BWRAP=/nonexistent/bwrap)', () => {
  it('is not ready: 503 with SVC_SANDBOX_UNAVAILABLE in /readyz, and an error log line with the code and hint', async () => {
    const { base, isolationLines } = await start({ SVC_SANDBOX_BWRAP: '/nonexistent/bwrap' });
    for (const path of ['/readyz', '/healthz', '/_svc/readyz']) {
      const { status, body } = await readyz(base, path);
      expect(status, path).toBe(503);
      expect(body, path).toMatchObject({
        status: 'unavailable',
        checks: { database: 'ok', dataDir: 'ok', isolation: 'failed' },
        isolation: { mode: 'sandbox', available: false, problem: { code: 'SVC_SANDBOX_UNAVAILABLE' } },
      });
      expect(String(body.isolation.warning)).toMatch(/^apps cannot start: .*bwrap.*\(SVC_SANDBOX_UNAVAILABLE\) Run `bash scripts\/setup-host.sh`/);
    }
    expect((await fetch(`${base}/livez`)).status).toBe(200);
    expect(isolationLines).toHaveLength(1);
    expect(isolationLines[0]).toMatchObject({
      level: 50,
      code: 'SVC_SANDBOX_UNAVAILABLE',
      msg: expect.stringContaining('apt-get install -y bubblewrap slirp4netns'),
    });
  });
});

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stopIngress } from '../../src/ingress/edge/ensure-ingress.js';
import { startHarness, type Harness } from './harness.js';

const root = join(import.meta.dirname, '..', '..');

describe('real HTTP', () => {
  let h: Harness | undefined;
  const dirs: string[] = [];
  afterEach(async () => {
    await h?.close();
    h = undefined;
    dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
  });

  it('serves health, readiness and a device login over a real listener on port 0', async () => {
    h = await startHarness({ publicUrl: null });
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = h.app.server.address() as { port: number };
    const base = `http://127.0.0.1:${port}`;
    expect(await (await fetch(`${base}/livez`)).json()).toEqual({ status: 'ok' });
    for (const path of ['/healthz', '/readyz', '/_svc/readyz']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: 'ok',
        checks: { database: 'ok', dataDir: 'ok', isolation: 'ok' },
        isolation: expect.objectContaining({ mode: 'sandbox', available: true }),
      });
    }
    const start = await fetch(`${base}/api/device/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientName: 'real' }),
    });
    const body = (await start.json()) as { verificationUri: string };
    expect(body.verificationUri).toBe(`${base}/device`);
    const big = await fetch(`${base}/api/device/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientName: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe('SVC_PAYLOAD_TOO_LARGE');
  });

  it('readiness fails with 503 when the control database is unusable', async () => {
    h = await startHarness();
    h.plane.db.close();
    const res = await h.app.inject({ method: 'GET', url: '/_svc/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'unavailable', checks: { database: 'failed', dataDir: 'ok' } });
    expect((await h.app.inject({ method: 'GET', url: '/livez' })).statusCode).toBe(200);
  });

  it('svc-platform main(): flags, env, private data dir, and graceful shutdown on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-main-'));
    dirs.push(dir);
    const data = join(dir, 'data');
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src', 'platform-main.ts'), '--listen', '127.0.0.1:0', '--data', data], {
      cwd: root,
      env: { ...process.env, SVC_REGISTRATION: 'disabled', SVC_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line: ${output}`)), 20_000);
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /"url":"(http:\/\/127\.0\.0\.1:\d+)".*"msg":"svc-platform listening"/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    expect(await (await fetch(`${url}/livez`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${url}/__svc/auth/registration`)).json()).toEqual({ mode: 'disabled', open: false });
    expect(statSync(join(data, 'control.db')).mode & 0o777).toBe(0o600);
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(output).toContain('"msg":"stopped"');
    // SIGTERM ends the control plane only; the ingress process keeps the port until it is stopped.
    expect(await stopIngress(data)).toBe(true);
  });

  it('svc-platform main() refuses invalid configuration with a clear message and exit code 2', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src', 'platform-main.ts'), '--listen', 'nonsense'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(2);
    expect(err).toContain('SVC_PLATFORM_CONFIG_INVALID');
  });
});

// `svc doctor` against a real control plane (port 0): the isolation line for the default sandbox,
// SVC_SANDBOX=off and a broken sandbox; offline (no server named) it adds nothing.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { exitCodeFor, SvcError } from '../../src/core/errors.js';
import { startHarness, type Harness } from '../platform/harness.js';
import { freePort } from '../support/free-port.js';
import { commandComponent, requireComponents } from '../support/require-components.js';
import { runCli, tempDir } from './run-cli.js';

const gate = requireComponents('svc doctor against the default sandbox', [
  commandComponent('bubblewrap', ['bwrap', '--version']),
  commandComponent('slirp4netns', ['slirp4netns', '--version']),
]);

interface Report {
  ok: boolean;
  checks: Array<{ id: string; status: string; message: string; code?: string; hint?: string }>;
  server: { url: string; isolation: { mode: string; available: boolean; warning?: string } | null } | null;
}

const cleanups: Array<() => Promise<void>> = [];
let app: string;
let home: string;
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});
beforeEach(async () => {
  const made = await tempDir('svc-doctor-isolation-');
  cleanups.push(made.cleanup);
  app = join(made.dir, 'app');
  home = join(made.dir, 'home'); // no stored login
  await mkdir(join(app, 'dist'), { recursive: true });
  await mkdir(home);
  await writeFile(join(app, 'dist', 'server.mjs'), 'console.log("hi");\n');
  await writeFile(join(app, '.gitignore'), '.svc/\n');
  await writeFile(
    join(app, 'svc.deploy.json'),
    JSON.stringify({ version: 1, entry: 'dist/server.mjs', include: ['dist'], build: { command: [process.execPath, '-e', '0'] } }),
  );
});

/** A control plane with `env` listening on a free loopback port. */
async function server(env: Record<string, string>): Promise<string> {
  const h: Harness = await startHarness({ publicUrl: null, env });
  cleanups.push(() => h.close());
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}`;
}

function doctor(args: string[], env: Record<string, string | undefined> = {}) {
  return runCli(['doctor', ...args], { cwd: app, home, env: { SVC_SERVER: undefined, SVC_TOKEN: undefined, ...env } });
}

describe('svc doctor: app isolation of the server', () => {
  it('stays offline when no server is named', async () => {
    const run = await doctor(['--json']);
    expect(run.code, run.stdout).toBe(0);
    const report = run.json<Report>();
    expect(report.server).toBeNull();
    expect(report.checks.map((c) => c.id)).not.toContain('isolation');
  });

  describe.skipIf(gate.skip)('the default sandbox', () => {
    beforeAll(() => gate.assertPresent());

    it('passes and names the mode (--server)', async () => {
      const url = await server({});
      const run = await doctor(['--server', url, '--json']);
      expect(run.code, run.stdout).toBe(0);
      const report = run.json<Report>();
      expect(report.checks.find((c) => c.id === 'isolation')).toMatchObject({
        status: 'pass',
        message: expect.stringContaining(`sandbox on ${url}: apps run in a bubblewrap sandbox each, isolated network`),
      });
      expect(report.server).toMatchObject({ url, isolation: { mode: 'sandbox', available: true } });
    });
  });

  it('warns about SVC_SANDBOX=off (server from SVC_SERVER), in JSON and in the human report', async () => {
    const url = await server({ SVC_SANDBOX: 'off' });
    const json = await doctor(['--json'], { SVC_SERVER: url });
    expect(json.code, json.stdout).toBe(0);
    const report = json.json<Report>();
    expect(report.checks.find((c) => c.id === 'isolation')).toMatchObject({
      status: 'warn',
      message: `unsandboxed on ${url}: apps run WITHOUT isolation (SVC_SANDBOX=off) — only for apps you trust`,
    });
    expect(report.server?.isolation).toMatchObject({ mode: 'unsandboxed', warning: expect.stringContaining('WITHOUT isolation') });

    const human = await doctor([], { SVC_SERVER: url });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/! Isolation\s+unsandboxed on http:\/\/127\.0\.0\.1:\d+: apps run WITHOUT isolation/);
    expect(human.stdout).toContain('→ On the server: install bubblewrap and slirp4netns');
  });

  it('fails with SVC_SANDBOX_UNAVAILABLE when the server cannot start apps', async () => {
    const url = await server({ SVC_SANDBOX_BWRAP: '/nonexistent/bwrap' });
    const run = await doctor(['--server', url, '--json']);
    expect(run.code).toBe(exitCodeFor(new SvcError('SVC_CLI_DOCTOR_FAILED')));
    const report = run.json<Report>();
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.id === 'isolation')).toMatchObject({
      status: 'fail',
      code: 'SVC_SANDBOX_UNAVAILABLE',
      message: expect.stringContaining('apps cannot start'),
      hint: expect.stringContaining('bubblewrap'),
    });
    expect(report.server?.isolation).toMatchObject({ mode: 'sandbox', available: false });
  });

  it('only warns when the named server cannot be reached', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = await doctor(['--server', url, '--json']);
    expect(run.code, run.stdout).toBe(0);
    expect(run.json<Report>().checks.find((c) => c.id === 'isolation')).toMatchObject({ status: 'warn', code: 'SVC_NETWORK' });
  });
});

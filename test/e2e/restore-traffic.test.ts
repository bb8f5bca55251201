// A restore stops and restarts the app, so it must hand traffic back to the restarted app: the real
// control plane as a child process, the `svc` CLI as child processes, and every app request through
// the ingress by the project's host (never the app's own port, which would hide a missing route).
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backup } from '../../src/backups/contract.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { repoRoot } from '../support/repo-root.js';
import { finalJson, runCli, type CliResult } from '../support/run-cli.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';

const SLUG = 'e2e-restore';
let platform: StartedPlatform;
let account: TestAccount;
let root: string;
let app: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-e2e-restore-'));
  app = join(root, 'app');
  await cp(join(repoRoot, 'fixtures', 'apps', 'healthy'), app, { recursive: true });
  platform = await startPlatform();
  account = await bootstrapAccount(platform.url);
}, 90_000);

afterAll(async () => {
  await platform?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

function svc(args: string[]): Promise<CliResult> {
  return runCli(['--cwd', app, ...args], { home: root, env: { SVC_TOKEN: account.accessToken, SVC_SERVER: platform.url }, timeoutMs: 120_000 });
}

function parse<T>(result: CliResult): T {
  try {
    return finalJson(result.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${result.exitCode})\nstdout: ${result.stdout}\nstderr: ${result.stderr}\nserver:\n${platform.logs().slice(-4000)}`);
  }
}

// *.localhost may not resolve in Node: connect to the platform's port with the project's Host header.
async function viaIngress(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const response = await request(`${platform.url}${path}`, {
    method,
    headers: { host: `${SLUG}.localhost:${platform.port}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.statusCode, text: await response.body.text() };
}

async function notes(): Promise<{ status: number; notes: string[] | string }> {
  const { status, text } = await viaIngress('GET', '/notes');
  if (status !== 200) return { status, notes: text };
  return { status, notes: (JSON.parse(text) as { notes: { text: string }[] }).notes.map((n) => n.text) };
}

describe('svc backups restore and the ingress', () => {
  it('serves the restored data through the project host as soon as the restore returns', async () => {
    const deploy = await svc(['deploy', '--slug', SLUG, '--name', 'E2E Restore', '--json']);
    expect(deploy.exitCode, deploy.stderr).toBe(0);
    expect((await viaIngress('POST', '/notes', { text: 'kept' })).status).toBe(201);

    const created = await svc(['backups', 'create', '--json']);
    expect(created.exitCode, created.stderr).toBe(0);
    const backup = parse<{ backup: Backup }>(created).backup;
    expect((await viaIngress('POST', '/notes', { text: 'lost' })).status).toBe(201);
    expect(await notes()).toEqual({ status: 200, notes: ['kept', 'lost'] });

    const restored = await svc(['backups', 'restore', backup.id, `--confirm=restore ${SLUG}`, '--json']);
    expect(restored.exitCode, restored.stderr).toBe(0);
    // No waiting: the restore answers only once the restarted app is healthy and routed again.
    expect(await notes()).toEqual({ status: 200, notes: ['kept'] });
    expect((await viaIngress('POST', '/notes', { text: 'after' })).status).toBe(201);
    expect(await notes()).toEqual({ status: 200, notes: ['kept', 'after'] });
  }, 180_000);
});

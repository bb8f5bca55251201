// End to end: the real control plane as a child process, the `svc` CLI as child processes
// and Debian's caddy in front: deploy two releases, set a secret and see the app read it after the
// next release, back up (and download), delete the older release (refused without
// --allow-rollback-loss), add a domain and reach the app through Caddy with on-demand TLS, delete
// the site and see every file under its root gone and project.delete in the audit feed.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/audit/contract.js';
import type { Backup } from '../../src/backups/contract.js';
import type { Release } from '../../src/releases/contract.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { repoRoot } from '../support/repo-root.js';
import { finalJson, runCli, type CliResult } from '../support/run-cli.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';
import { CADDY, httpsGet, startCaddy, type RunningCaddy } from '../projects/tls-ask-caddy.js';

const SLUG = 'e2e-life';
const DOMAIN = 'shop.e2e-life.test';
const ASK_TOKEN = 'e2e-ask-token-abcdef0123456789';
let platform: StartedPlatform;
let account: TestAccount;
let root: string;
let app: string;
let caddy: RunningCaddy | undefined;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-e2e-life-'));
  app = join(root, 'app');
  platform = await startPlatform({ env: { SVC_TLS_ASK_TOKEN: ASK_TOKEN } });
  account = await bootstrapAccount(platform.url);
}, 90_000);
afterAll(async () => {
  await caddy?.stop();
  await platform?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

async function useFixture(name: string): Promise<void> {
  for (const entry of ['src', 'dist', 'migrations', 'svc.deploy.json']) await rm(join(app, entry), { recursive: true, force: true });
  await cp(join(repoRoot, 'fixtures', 'apps', name), app, { recursive: true });
}
function svc(args: string[], input?: string): Promise<CliResult> {
  return runCli(['--cwd', app, ...args], {
    home: root,
    env: { SVC_TOKEN: account.accessToken, SVC_SERVER: platform.url },
    timeoutMs: 120_000,
    ...(input === undefined ? {} : { input }),
  });
}
function parse<T>(result: CliResult): T {
  try {
    return finalJson(result.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${result.exitCode})\nstdout: ${result.stdout}\nstderr: ${result.stderr}\nserver:\n${platform.logs().slice(-4000)}`);
  }
}
async function viaIngress<T>(path: string): Promise<T> {
  const response = await request(`${platform.url}${path}`, { headers: { host: `${SLUG}.localhost:${platform.port}` } });
  return JSON.parse(await response.body.text()) as T;
}
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name));
}

describe('release lifecycle and project data', () => {
  it('deploy ×2 with a secret, backup, release cleanup, custom domain through Caddy, project deletion', async () => {
    // 1. First release; a secret set now is not in the running app's environment yet.
    await useFixture('healthy');
    const first = await svc(['deploy', '--slug', SLUG, '--name', 'E2E Life', '--json']);
    expect(first.exitCode, first.stderr).toBe(0);
    const v1 = parse<{ project: { id: string }; release: Release }>(first);
    const projectId = v1.project.id;
    const secretValue = 'hello\nworld';
    const set = await svc(['secrets', 'set', 'GREETING', '--json'], `${secretValue}\n`);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(set.stdout).not.toContain('hello');
    expect(await viaIngress<{ value: string | null }>('/env/GREETING')).toMatchObject({ value: null });
    const list = await svc(['secrets', 'list', '--json']);
    expect(parse<{ secrets: { name: string }[] }>(list).secrets.map((s) => s.name)).toEqual(['GREETING']);
    expect(list.stdout).not.toContain('hello');

    // 2. Second release: the app reads the secret.
    await useFixture('healthy-v2');
    const second = await svc(['deploy', '--json']);
    expect(second.exitCode, second.stderr).toBe(0);
    const v2 = parse<{ release: Release }>(second).release;
    expect(v2).toMatchObject({ status: 'active', predecessorId: v1.release.id });
    expect(await viaIngress<{ name: string; value: string | null }>('/env/GREETING')).toEqual({ name: 'GREETING', value: secretValue });

    // 3. Back up and download the decrypted database.
    const note = await request(`${platform.url}/notes`, {
      method: 'POST',
      headers: { host: `${SLUG}.localhost:${platform.port}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'kept in backup' }),
    });
    expect(note.statusCode).toBe(201);
    await note.body.text();
    const backup = await svc(['backups', 'create', '--json']);
    expect(backup.exitCode, backup.stderr).toBe(0);
    const taken = parse<{ backup: Backup }>(backup).backup;
    const output = join(root, 'backup.db');
    const download = await svc(['backups', 'download', taken.id, '--output', output, '--json']);
    expect(download.exitCode, download.stderr).toBe(0);
    const copy = new Database(output, { readonly: true });
    expect(copy.prepare('SELECT text FROM notes').all()).toEqual([{ text: 'kept in backup' }]);
    copy.close();

    // 4. Release cleanup: v1 is the rollback target of v2, so it needs --allow-rollback-loss.
    const phrase = `delete-release ${SLUG} ${v1.release.id}`;
    const refused = await svc(['releases', 'delete', v1.release.id, `--confirm=${phrase}`]);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('SVC_ROLLBACK_LOSS_NOT_ALLOWED');
    const releaseDir = join(platform.dataDir, 'projects', projectId, 'releases', v1.release.id);
    expect(existsSync(releaseDir)).toBe(true);
    const cleaned = await svc(['releases', 'delete', v1.release.id, `--confirm=${phrase}`, '--allow-rollback-loss', '--json']);
    expect(cleaned.exitCode, cleaned.stderr).toBe(0);
    expect(parse<{ removedSnapshot: boolean }>(cleaned)).toMatchObject({ releaseId: v1.release.id, artifactRetained: false, removedSnapshot: true });
    expect(existsSync(releaseDir)).toBe(false);
    const releases = parse<{ releases: Release[] }>(await svc(['releases', '--json']));
    expect(releases.releases.find((r) => r.id === v1.release.id)).toMatchObject({ status: 'inactive', artifactRetained: false });

    // 5. Custom domain, reached through Caddy with an on-demand certificate from its internal CA.
    const added = await svc(['domains', 'add', DOMAIN, '--json']);
    expect(added.exitCode, added.stderr).toBe(0);
    if (existsSync(CADDY)) {
      caddy = await startCaddy({ dir: await mkdtemp(join(root, 'caddy-')), svc: `127.0.0.1:${platform.port}`, askToken: ASK_TOKEN });
      let ca = '';
      const deadline = Date.now() + 30_000;
      while (!ca && Date.now() < deadline) {
        await httpsGet(caddy.httpsPort, DOMAIN, '/', '').catch(() => undefined); // first handshake provisions the CA
        ca = caddy.rootCa();
        if (!ca) await new Promise((r) => setTimeout(r, 200));
      }
      writeFileSync(join(root, 'caddy-root.crt'), ca);
      const served = await httpsGet(caddy.httpsPort, DOMAIN, '/', ca);
      expect(served.status, caddy.output().slice(-3000)).toBe(200);
      expect(JSON.parse(served.body)).toMatchObject({ app: 'healthy', version: 2, release: v2.id });
      const env = await httpsGet(caddy.httpsPort, DOMAIN, '/env/GREETING', ca);
      expect(JSON.parse(env.body)).toEqual({ name: 'GREETING', value: secretValue });
    }

    // 6. Project deletion: refused without the acknowledgement, then everything under the root is gone.
    const root_ = join(platform.dataDir, 'projects', projectId);
    expect(filesUnder(root_).length).toBeGreaterThan(0);
    const noAck = await svc(['project', 'delete', `--confirm=delete-site ${SLUG}`]);
    expect(noAck.exitCode).not.toBe(0);
    expect(noAck.stderr).toContain('SVC_DATA_LOSS_NOT_ACKNOWLEDGED');
    // Before refusing it says what would be lost, counted as the console's delete dialog counts it.
    expect(`${noAck.stdout}${noAck.stderr}`).toMatch(/Releases:\s+\d+ releases? with/);
    expect(`${noAck.stdout}${noAck.stderr}`).toMatch(/Domains:\s+1 custom domain, which stops routing at once/);
    const deleted = await svc(['project', 'delete', `--confirm=delete-site ${SLUG}`, '--acknowledge-data-loss', '--json']);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    const result = parse<{ auditEventId: string; projectId: string }>(deleted);
    expect(result.projectId).toBe(projectId);
    expect(existsSync(root_)).toBe(false);
    expect(filesUnder(root_)).toEqual([]);
    expect(existsSync(join(platform.dataDir, 'logs', projectId))).toBe(false);

    const feed = await account.api<{ events: AuditEvent[] }>('GET', '/api/audit?limit=100');
    const event = feed.events.find((e) => e.kind === 'project.delete');
    expect(event).toMatchObject({ id: result.auditEventId, projectId });
    const activity = await svc(['activity', '--json']);
    expect(parse<{ events: AuditEvent[] }>(activity).events.map((e) => e.kind)).toEqual(
      expect.arrayContaining(['project.delete', 'release.delete', 'backup.create', 'secret.set', 'domain.add']),
    );
    if (caddy) {
      const gone = await httpsGet(caddy.httpsPort, DOMAIN, '/', caddy.rootCa()).catch((e: unknown) => e as Error);
      // The certificate may still be cached by Caddy, but svc no longer routes the domain.
      expect(gone instanceof Error || gone.status !== 200).toBe(true);
    }
  }, 300_000);
});

// Project deletion through DELETE /api/projects/:id against deployed apps: refusals (phrase,
// acknowledgement, project-scoped token, viewer/developer), a symlinked project root, removal failing
// part-way (an immutable file, `chattr +i`) then a retry, a failed metadata transaction then a retry,
// and the full success: files, logs, tokens, rows and routes gone, project.delete in the feed.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, invite, personalOrg, type Browser } from '../platform/harness.js';
import { eventually, packFixture, removeDataDir, startPlane, type Artifact, type Plane } from '../releases/release-support.js';
import { requireComponents, rootComponent, type Component } from '../support/require-components.js';

let work: string;
let plane: Plane;
let healthy: Artifact;
const immutable: string[] = [];

/** `chattr +i` needs root (CAP_LINUX_IMMUTABLE) and a file system with the immutable flag (not tmpfs, not overlayfs). */
const chattrComponent: Component = {
  name: 'chattr +i on the temporary directory',
  probe() {
    const probe = join(tmpdir(), `svc-chattr-${process.pid}`);
    writeFileSync(probe, 'x');
    try {
      execFileSync('chattr', ['+i', probe], { stdio: 'pipe' });
      execFileSync('chattr', ['-i', probe], { stdio: 'pipe' });
      return null;
    } catch (error) {
      return (error as Error).message.split('\n')[0] ?? 'chattr failed';
    } finally {
      try {
        unlinkSync(probe);
      } catch {
        // immutable after all; leave it
      }
    }
  },
};
const chattrGate = requireComponents('project deletion failing part-way', [rootComponent(), chattrComponent]);

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-del-art-'));
  healthy = await packFixture('healthy', work);
  plane = await startPlane();
}, 120_000);
afterAll(async () => {
  for (const file of immutable) execFileSync('chattr', ['-i', file], { stdio: 'ignore' });
  await plane?.close();
  if (plane) await removeDataDir(plane.dataDir);
  await removeDataDir(work);
});

let counter = 0;
/** A new project of the owner with the healthy app deployed. */
async function deployedProject(): Promise<{ id: string; slug: string; organizationId: string }> {
  const project = await createProject(plane.app, plane.owner, { name: 'Doomed', slug: `doomed-${++counter}-${process.pid % 1000}` });
  const res = await plane.app.inject({
    method: 'POST',
    url: `/api/projects/${project.id}/releases`,
    headers: plane.owner.headers({
      'content-type': 'application/vnd.svc.deploy+gzip',
      'x-svc-artifact-digest': healthy.digest,
      'idempotency-key': `key-${project.id}`,
    }),
    payload: healthy.bytes,
  });
  if (res.statusCode !== 201) throw new Error(res.body);
  return project;
}
const rootOf = (id: string) => join(plane.dataDir, 'projects', id);
function del(id: string, body: unknown, headers: Record<string, string> = plane.owner.headers()) {
  return plane.app.inject({ method: 'DELETE', url: `/api/projects/${id}`, headers, payload: body as object });
}
async function appAnswers(id: string): Promise<boolean> {
  const running = plane.plane.releases.current(id);
  if (!running) return false;
  const res = await fetch(`http://${running.host}:${running.port}/healthz`).catch(() => null);
  return res?.status === 200;
}
/** Whether the ingress routes the project to its running app (the restart must re-point it, not only start it). */
function routedToRunningApp(id: string): boolean {
  const running = plane.plane.releases.current(id);
  const target = plane.plane.ingress.routes.get(id)?.target;
  return running !== null && target?.port === running.port && target.releaseId === running.releaseId;
}
function count(table: string, id: string): number {
  return (plane.plane.db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE project_id = ?`).get(id) as { n: number }).n;
}
async function token(browser: Browser, body: Record<string, unknown>): Promise<string> {
  const res = await plane.app.inject({ method: 'POST', url: '/api/tokens', headers: browser.headers(), payload: body });
  if (res.statusCode !== 201) throw new Error(res.body);
  return (res.json() as { accessToken: string }).accessToken;
}

describe('project deletion', () => {
  it('refuses a wrong phrase, a missing acknowledgement, a project-scoped token and non-admin roles, changing nothing', async () => {
    const p = await deployedProject();
    const phrase = `delete-site ${p.slug}`;
    expect((await del(p.id, { confirm: `delete-site other`, acknowledgeDataLoss: true })).json().error.code).toBe('SVC_SITE_DELETE_CONFIRMATION_MISMATCH');
    expect((await del(p.id, { confirm: phrase })).json().error.code).toBe('SVC_DATA_LOSS_NOT_ACKNOWLEDGED');
    expect((await del(p.id, { confirm: phrase, acknowledgeDataLoss: false })).json().error.code).toBe('SVC_DATA_LOSS_NOT_ACKNOWLEDGED');

    const scoped = await token(plane.owner, { name: 'scoped', projectId: p.id, permissions: ['read', 'tokens', 'admin', 'projects'] });
    const asScoped = await del(p.id, { confirm: phrase, acknowledgeDataLoss: true }, { authorization: `Bearer ${scoped}` });
    expect(asScoped.json().error.code).toBe('SVC_TOKEN_SCOPE');

    const org = await personalOrg(plane.app, plane.owner);
    const viewer = await invite(plane.app, plane.owner, org, `viewer-${p.id}@example.com`, 'viewer');
    expect((await del(p.id, { confirm: phrase, acknowledgeDataLoss: true }, viewer.headers())).json().error.code).toBe('SVC_FORBIDDEN');
    const developer = await invite(plane.app, plane.owner, org, `dev-${p.id}@example.com`, 'developer');
    expect((await del(p.id, { confirm: phrase, acknowledgeDataLoss: true }, developer.headers())).json().error.code).toBe('SVC_FORBIDDEN');
    // A browser session without the CSRF header is refused too.
    const noCsrf = await del(p.id, { confirm: phrase, acknowledgeDataLoss: true }, { cookie: plane.owner.cookie, origin: 'http://127.0.0.1:7070' });
    expect(noCsrf.json().error.code).toBe('SVC_CSRF_INVALID');

    expect(existsSync(rootOf(p.id))).toBe(true);
    expect(count('releases', p.id)).toBe(1);
    expect(await appAnswers(p.id)).toBe(true);
  });

  it('rechecks the role under the project lock: an administrator demoted while waiting is refused', async () => {
    const p = await deployedProject();
    const org = await personalOrg(plane.app, plane.owner);
    const admin = await invite(plane.app, plane.owner, org, `admin-${p.id}@example.com`, 'admin');
    const lock = await plane.plane.releases.locks.acquire(p.id, 'deploy');
    const pending = del(p.id, { confirm: `delete-site ${p.slug}`, acknowledgeDataLoss: true }, admin.headers());
    await new Promise((resolve) => setTimeout(resolve, 300));
    const demote = await plane.app.inject({
      method: 'PATCH',
      url: `/api/orgs/${org}/members/${admin.userId}`,
      headers: plane.owner.headers(),
      payload: { role: 'developer' },
    });
    expect(demote.statusCode, demote.body).toBe(200);
    await lock.release();
    const res = await pending;
    expect(res.json().error.code).toBe('SVC_FORBIDDEN');
    expect(existsSync(rootOf(p.id))).toBe(true);
    expect(await eventually(() => appAnswers(p.id))).toBe(true);
  });

  it('refuses a project root replaced by a symbolic link: nothing removed, metadata kept, the app restarted', async () => {
    const p = await deployedProject();
    const moved = join(plane.dataDir, `moved-${p.id}`);
    renameSync(rootOf(p.id), moved);
    symlinkSync(moved, rootOf(p.id), 'dir');
    writeFileSync(join(moved, 'outside-marker'), 'keep');
    const res = await del(p.id, { confirm: `delete-site ${p.slug}`, acknowledgeDataLoss: true });
    expect(res.statusCode).toBe(500);
    expect(res.json().error.code).toBe('SVC_SITE_PATH_UNSAFE');
    expect(existsSync(join(moved, 'outside-marker'))).toBe(true);
    expect(existsSync(join(moved, 'releases'))).toBe(true);
    expect(count('releases', p.id)).toBe(1);
    expect((await plane.api('GET', `/api/projects/${p.id}`)).statusCode).toBe(200);
    expect(await eventually(() => appAnswers(p.id))).toBe(true);
    expect(routedToRunningApp(p.id)).toBe(true); // the failed deletion answered after the restart was routed
  });

  it.skipIf(chattrGate.skip)('removal failing part-way keeps the metadata and restarts the app; a retry completes', async () => {
    chattrGate.assertPresent();
    const p = await deployedProject();
    const stuck = join(rootOf(p.id), 'data', 'zz-immutable.txt');
    writeFileSync(stuck, 'cannot be removed');
    execFileSync('chattr', ['+i', stuck]);
    immutable.push(stuck);
    const first = await del(p.id, { confirm: `delete-site ${p.slug}`, acknowledgeDataLoss: true });
    expect(first.statusCode).toBe(500);
    expect(first.json().error.code).toBe('SVC_SITE_DELETE_FILES_FAILED');
    expect(existsSync(join(rootOf(p.id), 'data', 'app.db'))).toBe(false); // part of the tree is gone
    expect(existsSync(stuck)).toBe(true);
    expect(count('releases', p.id)).toBe(1);
    expect(plane.plane.db.prepare("SELECT COUNT(*) AS n FROM audit_events WHERE kind = 'project.delete' AND project_id = ?").get(p.id)).toEqual({ n: 0 });
    expect(await eventually(() => appAnswers(p.id))).toBe(true); // the previous release is running again
    expect(routedToRunningApp(p.id)).toBe(true);

    execFileSync('chattr', ['-i', stuck]);
    immutable.splice(immutable.indexOf(stuck), 1);
    const retry = await del(p.id, { confirm: `delete-site ${p.slug}`, acknowledgeDataLoss: true });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(existsSync(rootOf(p.id))).toBe(false);
  });

  it('a failed metadata transaction after removal returns the fixed recovery-safe error; a retry completes', async () => {
    const p = await deployedProject();
    // A foreign key without cascade makes DELETE FROM projects fail inside the transaction.
    plane.plane.db.exec('CREATE TABLE IF NOT EXISTS test_blocker (project_id TEXT REFERENCES projects(id))');
    plane.plane.db.prepare('INSERT INTO test_blocker VALUES (?)').run(p.id);
    const first = await del(p.id, { confirm: `delete-site ${p.slug}`, acknowledgeDataLoss: true });
    expect(first.statusCode).toBe(500);
    expect(first.json().error).toEqual({
      code: 'SVC_SITE_DELETE_INCOMPLETE',
      message: 'The site files were removed, but the control-database cleanup did not finish. Retry the same delete request to complete it.',
    });
    expect(existsSync(rootOf(p.id))).toBe(false);
    expect(count('releases', p.id)).toBe(1); // the transaction rolled back as a whole
    expect(plane.plane.releases.current(p.id)).toBeNull(); // files are gone: nothing is restarted

    plane.plane.db.prepare('DELETE FROM test_blocker WHERE project_id = ?').run(p.id);
    const retry = await del(p.id, { confirm: `delete-site ${p.slug}`, acknowledgeDataLoss: true });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(count('releases', p.id)).toBe(0);
  });

  it('deletes everything: files, logs, rows, scoped tokens, routes; project.delete stays in GET /api/audit', async () => {
    const p = await deployedProject();
    const scoped = await token(plane.owner, { name: 'ci', projectId: p.id, permissions: ['read', 'deploy'] });
    await plane.app.inject({ method: 'PUT', url: `/api/projects/${p.id}/secrets/API_KEY`, headers: plane.owner.headers(), payload: { value: 'x' } });
    await plane.app.inject({
      method: 'POST',
      url: `/api/projects/${p.id}/domains`,
      headers: plane.owner.headers(),
      payload: { domain: `${p.slug}.example.com` },
    });
    expect((await plane.app.inject({ method: 'POST', url: `/api/projects/${p.id}/backups`, headers: plane.owner.headers() })).statusCode).toBe(201);
    expect(existsSync(join(plane.dataDir, 'logs', p.id))).toBe(true);
    const account = await token(plane.owner, { name: 'admin', permissions: ['read', 'admin'] });

    const res = await del(p.id, { confirm: `delete-site ${p.slug}`, acknowledgeDataLoss: true }, { authorization: `Bearer ${account}` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ deleted: true, projectId: p.id, slug: p.slug, revokedTokens: 1 });

    expect(existsSync(rootOf(p.id))).toBe(false);
    expect(existsSync(join(plane.dataDir, 'logs', p.id))).toBe(false);
    expect(readdirSync(join(plane.dataDir, 'projects'))).not.toContain(p.id);
    for (const table of ['releases', 'release_snapshots', 'secrets', 'project_domains', 'backups']) expect(count(table, p.id), table).toBe(0);
    const withScoped = await plane.app.inject({ method: 'GET', url: `/api/projects/${p.id}`, headers: { authorization: `Bearer ${scoped}` } });
    expect(withScoped.json().error.code).toBe('SVC_TOKEN_REVOKED');
    expect(plane.plane.releases.current(p.id)).toBeNull();
    expect(plane.plane.ingress.routes.hosts.resolve(`${p.slug}.example.com`)).toBeUndefined();
    expect((await plane.api('GET', `/api/projects/${p.id}`)).json().error.code).toBe('SVC_PROJECT_NOT_FOUND');

    const feed = await plane.api('GET', '/api/audit?limit=50');
    const event = (feed.json() as { events: { id: string; kind: string; projectId: string | null; organizationId: string }[] }).events.find(
      (e) => e.kind === 'project.delete' && e.projectId === p.id,
    );
    expect(event).toMatchObject({ id: res.json().auditEventId, organizationId: p.organizationId });
  });
});

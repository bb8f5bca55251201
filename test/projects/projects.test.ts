import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkProjectSlug, slugFromName } from '../../src/projects/contract.js';
import { bearer, createProject, createToken, invite, personalOrg, register, snapshotCounts, startHarness, type Harness } from '../platform/harness.js';

describe('projects', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('creates a project with a private root directory, an audit event, and shows it in list, status and dashboard', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const org = await personalOrg(h.app, owner);
    const res = await h.app.inject({ method: 'POST', url: '/api/projects', headers: owner.headers(), payload: { name: 'My Blog' } });
    expect(res.statusCode).toBe(201);
    const project = res.json().project;
    expect(project).toMatchObject({
      slug: 'my-blog',
      name: 'My Blog',
      organizationId: org,
      status: { state: 'new', activeReleaseId: null, url: 'http://my-blog.localhost:7070' },
    });
    const root = join(h.plane.context.config.dataDir, 'projects', project.id);
    expect(statSync(root).isDirectory()).toBe(true);
    expect(statSync(root).mode & 0o777).toBe(0o700);

    const byId = await h.app.inject({ method: 'GET', url: `/api/projects/${project.id}`, headers: { cookie: owner.cookie } });
    expect(byId.json().project).toEqual(project);
    const bySlug = await h.app.inject({ method: 'GET', url: '/api/projects/my-blog', headers: { cookie: owner.cookie } });
    expect(bySlug.json().project.id).toBe(project.id);
    const list = await h.app.inject({ method: 'GET', url: '/api/projects', headers: { cookie: owner.cookie } });
    expect(list.json().projects).toEqual([project]);
    const dash = await h.app.inject({ method: 'GET', url: '/api/dashboard', headers: { cookie: owner.cookie } });
    expect(dash.json().organizations[0]).toMatchObject({ id: org, role: 'owner', projects: [project] });
    const event = h.plane.db.prepare("SELECT * FROM audit_events WHERE kind = 'project.create'").get() as {
      organization_id: string;
      project_id: string;
      actor_type: string;
    };
    expect(event).toMatchObject({ organization_id: org, project_id: project.id, actor_type: 'user' });
  });

  it('rejects SQL-looking, Unicode-confusable, malformed, reserved and taken slugs without writing', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    await createProject(h.app, owner, { name: 'Taken', slug: 'taken' });
    const before = snapshotCounts(h);
    const cases: [unknown, string][] = [
      [{ name: 'x', slug: "blog'; DROP TABLE projects;--" }, 'SVC_PROJECT_SLUG_INVALID'],
      [{ name: 'x', slug: 'a OR 1=1' }, 'SVC_PROJECT_SLUG_INVALID'],
      [{ name: 'x', slug: 'pаypal' }, 'SVC_PROJECT_SLUG_INVALID'], // Cyrillic а
      [{ name: 'x', slug: 'ｂｌｏｇ' }, 'SVC_PROJECT_SLUG_INVALID'], // fullwidth
      [{ name: 'x', slug: 'blog\u200b' }, 'SVC_PROJECT_SLUG_INVALID'], // zero-width space
      [{ name: 'x', slug: 'xn--pypal-4ve' }, 'SVC_PROJECT_SLUG_INVALID'], // punycode
      [{ name: 'x', slug: 'Blog' }, 'SVC_PROJECT_SLUG_INVALID'],
      [{ name: 'x', slug: '-blog' }, 'SVC_PROJECT_SLUG_INVALID'],
      [{ name: 'x', slug: 'blog-' }, 'SVC_PROJECT_SLUG_INVALID'],
      [{ name: 'x', slug: 'ab' }, 'SVC_PROJECT_SLUG_INVALID'],
      [{ name: 'x', slug: 'a'.repeat(41) }, 'SVC_PROJECT_SLUG_INVALID'],
      [{ name: 'x', slug: '../etc' }, 'SVC_PROJECT_SLUG_INVALID'],
      [{ name: '日本語 ✨' }, 'SVC_PROJECT_SLUG_INVALID'],
      [{ name: 'x', slug: 'api' }, 'SVC_PROJECT_SLUG_RESERVED'],
      [{ name: 'x', slug: 'admin' }, 'SVC_PROJECT_SLUG_RESERVED'],
      [{ name: 'x', slug: 'taken' }, 'SVC_PROJECT_SLUG_TAKEN'],
      [{ name: '' }, 'SVC_VALIDATION'],
      [{ slug: 'noname' }, 'SVC_VALIDATION'],
      [{ name: 'x', slug: 'fine-slug', organizationId: 'org_missing' }, 'SVC_ORG_NOT_FOUND'],
    ];
    for (const [payload, code] of cases) {
      const res = await h.app.inject({ method: 'POST', url: '/api/projects', headers: owner.headers(), payload: payload as object });
      expect(res.json().error?.code, JSON.stringify(payload)).toBe(code);
    }
    expect(snapshotCounts(h)).toEqual(before);
  });

  it('viewers and developers: viewers read but cannot create; non-members get not found', async () => {
    h = await startHarness({ registration: 'public' });
    const owner = await register(h.app, 'owner@example.com');
    const org = await personalOrg(h.app, owner);
    const project = await createProject(h.app, owner, { name: 'Site', slug: 'site' });
    const viewer = await invite(h.app, owner, org, 'viewer@example.com', 'viewer');
    const stranger = await register(h.app, 'stranger@example.com');
    expect((await h.app.inject({ method: 'GET', url: `/api/projects/${project.id}`, headers: { cookie: viewer.cookie } })).statusCode).toBe(200);
    const before = snapshotCounts(h);
    const create = await h.app.inject({
      method: 'POST',
      url: '/api/projects',
      headers: viewer.headers(),
      payload: { name: 'Nope', slug: 'nope', organizationId: org },
    });
    expect(create.json().error.code).toBe('SVC_FORBIDDEN');
    expect(snapshotCounts(h)).toEqual(before);
    const hidden = await h.app.inject({ method: 'GET', url: `/api/projects/${project.id}`, headers: { cookie: stranger.cookie } });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json().error.code).toBe('SVC_PROJECT_NOT_FOUND');
    const list = await h.app.inject({ method: 'GET', url: '/api/projects', headers: { cookie: stranger.cookie } });
    expect(list.json().projects).toEqual([]);
  });

  it('a token without the projects permission cannot create projects', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const { accessToken } = await createToken(h.app, owner, { name: 'reader', permissions: ['read'] });
    const res = await h.app.inject({ method: 'POST', url: '/api/projects', headers: bearer(accessToken), payload: { name: 'x', slug: 'xyz' } });
    expect(res.json().error.code).toBe('SVC_FORBIDDEN');
    const { accessToken: deployer } = await createToken(h.app, owner, { name: 'deployer', permissions: ['read', 'projects'] });
    const ok = await h.app.inject({ method: 'POST', url: '/api/projects', headers: bearer(deployer), payload: { name: 'x', slug: 'xyz' } });
    expect(ok.statusCode).toBe(201);
  });

  it('slug rules are pure and shared with the CLI', () => {
    expect(checkProjectSlug('my-app-2')).toBeNull();
    expect(checkProjectSlug('my--app')).toBe('invalid');
    expect(checkProjectSlug('www')).toBe('reserved');
    expect(slugFromName('  My Shiny App! ')).toBe('my-shiny-app');
    expect(slugFromName('Café Ünïcödé')).toBe('cafe-unicode');
  });
});

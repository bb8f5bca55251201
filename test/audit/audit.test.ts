import { afterEach, describe, expect, it } from 'vitest';
import { appendAudit } from '../../src/audit/append-audit.js';
import { bearer, createProject, createToken, invite, personalOrg, register, snapshotCounts, startHarness, type Harness } from '../platform/harness.js';

describe('audit feed', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('is newest first with cursor pagination and organization attribution', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const org = await personalOrg(h.app, owner);
    for (const slug of ['one', 'two', 'three', 'four']) {
      await createProject(h.app, owner, { name: slug, slug: `site-${slug}` });
      h.clock.advance(1000);
    }
    const page1 = (await h.app.inject({ method: 'GET', url: '/api/audit?limit=2', headers: { cookie: owner.cookie } })).json();
    expect(page1.events.map((e: { metadata: { slug?: string } }) => e.metadata.slug)).toEqual(['site-four', 'site-three']);
    expect(page1.events[0]).toMatchObject({
      kind: 'project.create',
      organizationId: org,
      actor: { type: 'user', id: owner.userId, name: 'owner@example.com' },
    });
    const page2 = (await h.app.inject({ method: 'GET', url: `/api/audit?limit=2&before=${page1.nextCursor}`, headers: { cookie: owner.cookie } })).json();
    expect(page2.events.map((e: { metadata: { slug?: string } }) => e.metadata.slug)).toEqual(['site-two', 'site-one']);
    const page3 = (await h.app.inject({ method: 'GET', url: `/api/audit?limit=2&before=${page2.nextCursor}`, headers: { cookie: owner.cookie } })).json();
    expect(page3.events.map((e: { kind: string }) => e.kind)).toEqual(['account.register']);
    expect(page3.nextCursor).toBeNull();
    const filtered = (await h.app.inject({ method: 'GET', url: `/api/audit?organizationId=${org}&limit=1`, headers: { cookie: owner.cookie } })).json();
    expect(filtered.events).toHaveLength(1);
    const badCursor = await h.app.inject({ method: 'GET', url: '/api/audit?before=evt_nope', headers: { cookie: owner.cookie } });
    expect(badCursor.json().error.code).toBe('SVC_AUDIT_CURSOR_INVALID');
    const badLimit = await h.app.inject({ method: 'GET', url: '/api/audit?limit=100000', headers: { cookie: owner.cookie } });
    expect(badLimit.json().error.code).toBe('SVC_VALIDATION');
  });

  it('viewers are excluded; developers read; project feed is per project', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const org = await personalOrg(h.app, owner);
    const viewer = await invite(h.app, owner, org, 'viewer@example.com', 'viewer');
    const dev = await invite(h.app, owner, org, 'dev@example.com', 'developer');
    const a = await createProject(h.app, owner, { name: 'A', slug: 'site-a' });
    await createProject(h.app, owner, { name: 'B', slug: 'site-b' });
    const denied = await h.app.inject({ method: 'GET', url: `/api/audit?organizationId=${org}`, headers: { cookie: viewer.cookie } });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.code).toBe('SVC_FORBIDDEN');
    const viewerProject = await h.app.inject({ method: 'GET', url: `/api/projects/${a.id}/audit`, headers: { cookie: viewer.cookie } });
    expect(viewerProject.json().error.code).toBe('SVC_FORBIDDEN');
    // The viewer's own personal workspace still has a feed, but never the shared org's events.
    const own = (await h.app.inject({ method: 'GET', url: '/api/audit', headers: { cookie: viewer.cookie } })).json();
    expect(own.events.every((e: { organizationId: string }) => e.organizationId !== org)).toBe(true);
    const devFeed = (await h.app.inject({ method: 'GET', url: `/api/audit?organizationId=${org}`, headers: { cookie: dev.cookie } })).json();
    expect(devFeed.events.some((e: { kind: string }) => e.kind === 'project.create')).toBe(true);
    const projectFeed = (await h.app.inject({ method: 'GET', url: `/api/projects/site-a/audit`, headers: { cookie: dev.cookie } })).json();
    expect(projectFeed.events.map((e: { projectId: string }) => e.projectId)).toEqual([a.id]);
  });

  it('project-scoped tokens need audit and see only their project', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const a = await createProject(h.app, owner, { name: 'A', slug: 'site-a' });
    const b = await createProject(h.app, owner, { name: 'B', slug: 'site-b' });
    const { accessToken: noAudit } = await createToken(h.app, owner, { name: 'r', projectId: a.id, permissions: ['read'] });
    expect((await h.app.inject({ method: 'GET', url: '/api/audit', headers: bearer(noAudit) })).json().error.code).toBe('SVC_FORBIDDEN');
    const { accessToken } = await createToken(h.app, owner, { name: 'a', projectId: a.id, permissions: ['audit'] });
    const feed = (await h.app.inject({ method: 'GET', url: '/api/audit', headers: bearer(accessToken) })).json();
    expect(feed.events.length).toBeGreaterThan(0);
    expect(feed.events.every((e: { projectId: string }) => e.projectId === a.id)).toBe(true);
    const other = await h.app.inject({ method: 'GET', url: `/api/projects/${b.id}/audit`, headers: bearer(accessToken) });
    expect(other.statusCode).toBe(403);
    expect(other.json().error.code).toBe('SVC_TOKEN_SCOPE');
  });

  it('is append-only in the database and requires organization attribution', async () => {
    h = await startHarness();
    await register(h.app, 'owner@example.com');
    const before = snapshotCounts(h);
    expect(() => h.plane.db.prepare("UPDATE audit_events SET kind = 'x'").run()).toThrow(/append-only/);
    expect(() => h.plane.db.prepare('DELETE FROM audit_events').run()).toThrow(/append-only/);
    expect(() =>
      h.plane.db
        .prepare(
          "INSERT INTO audit_events (id, kind, organization_id, actor_type, actor_id, metadata, created_at) VALUES ('evt_x', 'project.create', NULL, 'system', 's', '{}', 0)",
        )
        .run(),
    ).toThrow(/organization attribution/);
    expect(snapshotCounts(h)).toEqual(before);
    const id = appendAudit(h.plane.context, {
      kind: 'backup.create',
      organizationId: 'org_1',
      actor: { type: 'system', id: 'scheduler' },
      metadata: { bytes: 1 },
    });
    expect(id).toMatch(/^evt_/);
  });
});

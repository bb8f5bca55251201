import { afterEach, describe, expect, it } from 'vitest';
import { allows, rolePermissions } from '../../src/identity/permissions.js';
import { invite, personalOrg, register, snapshotCounts, startHarness, type Harness } from '../platform/harness.js';

describe('organizations and roles', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('role map: owner/admin everything, developer no admin, viewer read only', () => {
    expect(rolePermissions.owner).toContain('admin');
    expect(rolePermissions.admin).toContain('admin');
    expect(rolePermissions.developer).toEqual(expect.arrayContaining(['deploy', 'rollback', 'audit', 'secrets', 'read', 'tokens']));
    expect(rolePermissions.developer).not.toContain('admin');
    expect(rolePermissions.viewer).toEqual(['read']);
    expect(allows('owner', 'deploy', ['read'])).toBe(false);
    expect(allows('viewer', 'deploy', null)).toBe(false);
  });

  it('members, roles, last-owner protection and admin limits', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const org = await personalOrg(h.app, owner);
    const admin = await invite(h.app, owner, org, 'admin@example.com', 'admin');
    const viewer = await invite(h.app, owner, org, 'viewer@example.com', 'viewer');
    const members = (await h.app.inject({ method: 'GET', url: `/api/orgs/${org}/members`, headers: { cookie: viewer.cookie } })).json().members;
    expect(members.map((m: { email: string; role: string }) => `${m.email}:${m.role}`)).toEqual([
      'owner@example.com:owner',
      'admin@example.com:admin',
      'viewer@example.com:viewer',
    ]);

    const before = snapshotCounts(h);
    const byViewer = await h.app.inject({
      method: 'POST',
      url: `/api/orgs/${org}/invitations`,
      headers: viewer.headers(),
      payload: { email: 'x@example.com', role: 'viewer' },
    });
    expect(byViewer.json().error.code).toBe('SVC_FORBIDDEN');
    const adminMakesOwner = await h.app.inject({
      method: 'POST',
      url: `/api/orgs/${org}/invitations`,
      headers: admin.headers(),
      payload: { email: 'x@example.com', role: 'owner' },
    });
    expect(adminMakesOwner.json().error.code).toBe('SVC_FORBIDDEN');
    const adminDemotesOwner = await h.app.inject({
      method: 'PATCH',
      url: `/api/orgs/${org}/members/${owner.userId}`,
      headers: admin.headers(),
      payload: { role: 'viewer' },
    });
    expect(adminDemotesOwner.json().error.code).toBe('SVC_FORBIDDEN');
    const lastOwner = await h.app.inject({
      method: 'PATCH',
      url: `/api/orgs/${org}/members/${owner.userId}`,
      headers: owner.headers(),
      payload: { role: 'admin' },
    });
    expect(lastOwner.json().error.code).toBe('SVC_ORG_LAST_OWNER');
    const removeLast = await h.app.inject({ method: 'DELETE', url: `/api/orgs/${org}/members/${owner.userId}`, headers: owner.headers() });
    expect(removeLast.json().error.code).toBe('SVC_ORG_LAST_OWNER');
    const unknown = await h.app.inject({ method: 'PATCH', url: `/api/orgs/${org}/members/usr_nope`, headers: owner.headers(), payload: { role: 'viewer' } });
    expect(unknown.json().error.code).toBe('SVC_MEMBER_NOT_FOUND');
    expect(snapshotCounts(h)).toEqual(before);

    const promote = await h.app.inject({
      method: 'PATCH',
      url: `/api/orgs/${org}/members/${viewer.userId}`,
      headers: admin.headers(),
      payload: { role: 'developer' },
    });
    expect(promote.json().member.role).toBe('developer');
  });

  it('non-members see organizations as not found', async () => {
    h = await startHarness({ registration: 'public' });
    const a = await register(h.app, 'a@example.com');
    const b = await register(h.app, 'b@example.com');
    const orgA = await personalOrg(h.app, a);
    const res = await h.app.inject({ method: 'GET', url: `/api/orgs/${orgA}/members`, headers: { cookie: b.cookie } });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('SVC_ORG_NOT_FOUND');
  });

  it('creating an organization makes the caller owner; duplicate slugs are rejected', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const res = await h.app.inject({ method: 'POST', url: '/api/orgs', headers: owner.headers(), payload: { name: 'Acme', slug: 'acme' } });
    expect(res.json().organization).toMatchObject({ name: 'Acme', slug: 'acme', role: 'owner' });
    const dup = await h.app.inject({ method: 'POST', url: '/api/orgs', headers: owner.headers(), payload: { name: 'Acme 2', slug: 'acme' } });
    expect(dup.json().error.code).toBe('SVC_ORG_SLUG_TAKEN');
    const bad = await h.app.inject({ method: 'POST', url: '/api/orgs', headers: owner.headers(), payload: { name: 'Bad', slug: "x'; DROP TABLE users;--" } });
    expect(bad.json().error.code).toBe('SVC_VALIDATION');
  });
});

// The bearer hot path reuses prepared statements and reads roles once per request; these tests prove
// that nothing about it outlives a revocation, an expiry, a demotion or a removed membership.
import { afterEach, describe, expect, it } from 'vitest';
import { bearer, createProject, createToken, invite, register, startHarness, type Harness } from '../platform/harness.js';

const list = async (h: Harness, token: string, query = '') => h.app.inject({ method: 'GET', url: `/api/projects${query}`, headers: bearer(token) });
const slugs = (res: { json(): unknown }) => (res.json() as { projects: { slug: string }[] }).projects.map((p) => p.slug).sort();

describe('authenticated GET /api/projects hot path', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('a revoked or expired token fails on the very next request after warm, cached lookups', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    await createProject(h.app, owner, { name: 'Alpha', slug: 'alpha' });
    const revokeMe = await createToken(h.app, owner, { name: 'a', permissions: ['read'] });
    const expireMe = await createToken(h.app, owner, { name: 'b', permissions: ['read'], expiresInDays: 1 });
    for (let i = 0; i < 5; i++) {
      expect(slugs(await list(h, revokeMe.accessToken))).toEqual(['alpha']);
      expect(slugs(await list(h, expireMe.accessToken))).toEqual(['alpha']);
    }
    await h.app.inject({ method: 'DELETE', url: `/api/tokens/${revokeMe.id}`, headers: owner.headers() });
    expect((await list(h, revokeMe.accessToken)).json().error.code).toBe('SVC_TOKEN_REVOKED');
    h.clock.advance(86_400_000);
    expect((await list(h, expireMe.accessToken)).json().error.code).toBe('SVC_TOKEN_EXPIRED');
    expect((await list(h, 'svc_unknown')).json().error.code).toBe('SVC_TOKEN_INVALID');
  });

  it('lists by current role: a demotion, a removal and a token permission apply on the next request', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const team = (await h.app.inject({ method: 'POST', url: '/api/orgs', headers: owner.headers(), payload: { name: 'Team', slug: 'team' } })).json()
      .organization;
    const dev = await invite(h.app, owner, team.id, 'dev@example.com', 'developer');
    await createProject(h.app, owner, { name: 'Site', slug: 'site', organizationId: team.id });
    await createProject(h.app, dev, { name: 'Mine', slug: 'mine' });
    const { accessToken } = await createToken(h.app, dev, { name: 'cli', permissions: ['read'] });
    const deployOnly = await createToken(h.app, dev, { name: 'deployer', permissions: ['deploy'] });
    expect(slugs(await list(h, accessToken))).toEqual(['mine', 'site']);
    expect(slugs(await list(h, accessToken, `?organizationId=${team.slug}`))).toEqual(['site']);
    // Token permissions narrow the list: a token without read sees nothing.
    expect(slugs(await list(h, deployOnly.accessToken))).toEqual([]);

    await h.app.inject({ method: 'PATCH', url: `/api/orgs/${team.id}/members/${dev.userId}`, headers: owner.headers(), payload: { role: 'viewer' } });
    expect(slugs(await list(h, accessToken))).toEqual(['mine', 'site']);
    await h.app.inject({ method: 'DELETE', url: `/api/orgs/${team.id}/members/${dev.userId}`, headers: owner.headers() });
    expect(slugs(await list(h, accessToken))).toEqual(['mine']);
    expect((await list(h, accessToken, `?organizationId=${team.id}`)).json().error.code).toBe('SVC_ORG_NOT_FOUND');
    const dash = (await h.app.inject({ method: 'GET', url: '/api/dashboard', headers: bearer(accessToken) })).json();
    expect(dash.organizations.map((o: { slug: string }) => o.slug)).not.toContain('team');
  });

  it('a project-scoped token lists only its project, in every organization view', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const a = await createProject(h.app, owner, { name: 'Alpha', slug: 'alpha' });
    await createProject(h.app, owner, { name: 'Beta', slug: 'beta' });
    const { accessToken } = await createToken(h.app, owner, { name: 'scoped', projectId: a.id, permissions: ['read'] });
    expect(slugs(await list(h, accessToken))).toEqual(['alpha']);
    expect(slugs(await list(h, accessToken, `?organizationId=${a.organizationId}`))).toEqual(['alpha']);
    const dash = (await h.app.inject({ method: 'GET', url: '/api/dashboard', headers: bearer(accessToken) })).json();
    expect(dash.organizations[0].projects.map((p: { slug: string }) => p.slug)).toEqual(['alpha']);
  });
});

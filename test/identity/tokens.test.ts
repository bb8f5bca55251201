import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { bearer, createProject, createToken, register, snapshotCounts, startHarness, type Harness } from '../platform/harness.js';

describe('access tokens', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('creates a token (raw value once, 256-bit, SHA-256 stored), lists and revokes it', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const created = await h.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: owner.headers(),
      payload: { name: 'ci', permissions: ['deploy', 'read'] },
    });
    expect(created.statusCode).toBe(201);
    const { accessToken, token } = created.json();
    expect(accessToken).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    expect(token).toMatchObject({ name: 'ci', projectId: null, permissions: ['deploy', 'read'], status: 'active', revokedAt: null });
    expect(Date.parse(token.expiresAt) - h.clock.now()).toBe(90 * 86_400_000);
    const row = h.plane.db.prepare('SELECT token_hash FROM access_tokens WHERE id = ?').get(token.id) as { token_hash: string };
    expect(row.token_hash).toBe(createHash('sha256').update(accessToken).digest('hex'));

    const list = await h.app.inject({ method: 'GET', url: '/api/tokens', headers: { cookie: owner.cookie } });
    expect(list.json().tokens).toHaveLength(1);
    expect(list.body).not.toContain(accessToken);
    expect(list.body).not.toContain(row.token_hash);

    const revoked = await h.app.inject({ method: 'DELETE', url: `/api/tokens/${token.id}`, headers: owner.headers() });
    expect(revoked.json().token.status).toBe('revoked');
    const use = await h.app.inject({ method: 'GET', url: '/api/me', headers: bearer(accessToken) });
    expect(use.statusCode).toBe(401);
    expect(use.json().error.code).toBe('SVC_TOKEN_REVOKED');
    const kinds = (h.plane.db.prepare('SELECT kind FROM audit_events ORDER BY seq').all() as { kind: string }[]).map((r) => r.kind);
    expect(kinds).toEqual(expect.arrayContaining(['token.create', 'token.revoke']));
  });

  it('DELETE /api/tokens/current revokes the presenting token (svc logout)', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const { accessToken, id } = await createToken(h.app, owner, { name: 'cli', permissions: ['read'] });
    const res = await h.app.inject({ method: 'DELETE', url: '/api/tokens/current', headers: bearer(accessToken) });
    expect(res.json().token).toMatchObject({ id, status: 'revoked' });
    expect((await h.app.inject({ method: 'GET', url: '/api/me', headers: bearer(accessToken) })).json().error.code).toBe('SVC_TOKEN_REVOKED');
  });

  it('GET /api/tokens/current describes the presenting token (svc whoami), without the `tokens` permission', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const parent = await createToken(h.app, owner, { name: 'parent', permissions: ['tokens', 'read'], expiresInDays: 3 });
    const minted = await h.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: bearer(parent.accessToken),
      payload: { name: 'child', permissions: ['read'] },
    });
    const child = minted.json<{ accessToken: string; token: { id: string; expiresAt: string } }>();
    const res = await h.app.inject({ method: 'GET', url: '/api/tokens/current', headers: bearer(child.accessToken) });
    expect(res.statusCode, res.body).toBe(200);
    // The child's expiry is its parent's (3 days), not the 90-day default.
    expect(res.json().token).toMatchObject({ id: child.token.id, name: 'child', parentId: parent.id, permissions: ['read'], status: 'active' });
    expect(Date.parse(res.json().token.expiresAt) - h.clock.now()).toBe(3 * 86_400_000);
    expect(res.body).not.toContain(child.accessToken);

    const session = await h.app.inject({ method: 'GET', url: '/api/tokens/current', headers: { cookie: owner.cookie } });
    expect(session.statusCode).toBe(401);
    expect(session.json().error.code).toBe('SVC_AUTH_REQUIRED');
    h.clock.advance(3 * 86_400_000);
    expect((await h.app.inject({ method: 'GET', url: '/api/tokens/current', headers: bearer(child.accessToken) })).json().error.code).toBe('SVC_TOKEN_EXPIRED');
  });

  it('expired, unknown and malformed tokens are rejected with distinct codes', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const { accessToken } = await createToken(h.app, owner, { name: 'short', permissions: ['read'], expiresInDays: 1 });
    expect((await h.app.inject({ method: 'GET', url: '/api/me', headers: bearer(accessToken) })).statusCode).toBe(200);
    h.clock.advance(86_400_000);
    expect((await h.app.inject({ method: 'GET', url: '/api/me', headers: bearer(accessToken) })).json().error.code).toBe('SVC_TOKEN_EXPIRED');
    expect((await h.app.inject({ method: 'GET', url: '/api/me', headers: bearer(`svc_${'A'.repeat(43)}`) })).json().error.code).toBe('SVC_TOKEN_INVALID');
    expect((await h.app.inject({ method: 'GET', url: '/api/me', headers: { authorization: 'Basic abc' } })).json().error.code).toBe('SVC_TOKEN_INVALID');
    expect((await h.app.inject({ method: 'GET', url: '/api/me' })).json().error.code).toBe('SVC_AUTH_REQUIRED');
  });

  it('bad token requests are rejected without writing', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const { accessToken } = await createToken(h.app, owner, { name: 'reader', permissions: ['read'] });
    const before = snapshotCounts(h);
    const cases: [Record<string, string>, unknown, string][] = [
      [owner.headers(), { name: 'x', permissions: ['root'] }, 'SVC_VALIDATION'],
      [owner.headers(), { name: 'x', permissions: [] }, 'SVC_VALIDATION'],
      [owner.headers(), { name: 'x', permissions: ['read'], expiresInDays: 400 }, 'SVC_VALIDATION'],
      [owner.headers(), { name: 'x', permissions: ['read'], projectId: 'prj_missing' }, 'SVC_PROJECT_NOT_FOUND'],
      [bearer(accessToken), { name: 'x', permissions: ['read'] }, 'SVC_FORBIDDEN'],
    ];
    for (const [headers, payload, code] of cases) {
      const res = await h.app.inject({ method: 'POST', url: '/api/tokens', headers, payload: payload as object });
      expect(res.json().error.code, JSON.stringify(payload)).toBe(code);
    }
    expect(snapshotCounts(h)).toEqual(before);
  });

  it('a project-scoped token works only on its project and cannot mint wider tokens', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const a = await createProject(h.app, owner, { name: 'Alpha', slug: 'alpha' });
    const b = await createProject(h.app, owner, { name: 'Beta', slug: 'beta' });
    const { accessToken } = await createToken(h.app, owner, { name: 'alpha-ci', projectId: a.id, permissions: ['read', 'tokens'] });
    expect((await h.app.inject({ method: 'GET', url: `/api/projects/${a.id}`, headers: bearer(accessToken) })).statusCode).toBe(200);
    const other = await h.app.inject({ method: 'GET', url: `/api/projects/${b.id}`, headers: bearer(accessToken) });
    expect(other.statusCode).toBe(403);
    expect(other.json().error.code).toBe('SVC_TOKEN_SCOPE');
    const list = await h.app.inject({ method: 'GET', url: '/api/projects', headers: bearer(accessToken) });
    expect(list.json().projects.map((p: { slug: string }) => p.slug)).toEqual(['alpha']);
    const before = snapshotCounts(h);
    const wider = await h.app.inject({ method: 'POST', url: '/api/tokens', headers: bearer(accessToken), payload: { name: 'x', permissions: ['deploy'] } });
    expect(wider.json().error.code).toBe('SVC_TOKEN_PERMISSIONS_EXCEEDED');
    const elsewhere = await h.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: bearer(accessToken),
      payload: { name: 'x', projectId: b.id, permissions: ['read'] },
    });
    expect(elsewhere.json().error.code).toBe('SVC_TOKEN_SCOPE');
    const newProject = await h.app.inject({ method: 'POST', url: '/api/projects', headers: bearer(accessToken), payload: { name: 'Gamma', slug: 'gamma' } });
    expect(newProject.json().error.code).toBe('SVC_TOKEN_SCOPE');
    expect(snapshotCounts(h)).toEqual(before);
    const narrower = await h.app.inject({ method: 'POST', url: '/api/tokens', headers: bearer(accessToken), payload: { name: 'y', permissions: ['read'] } });
    expect(narrower.json().token.projectId).toBe(a.id);
  });

  it("token permissions are capped by the user's current role, rechecked on every request", async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const orgs = (await h.app.inject({ method: 'GET', url: '/api/orgs', headers: { cookie: owner.cookie } })).json().organizations;
    const team = (await h.app.inject({ method: 'POST', url: '/api/orgs', headers: owner.headers(), payload: { name: 'Team', slug: 'team' } })).json()
      .organization;
    expect(orgs).toHaveLength(1);
    const inv = (
      await h.app.inject({
        method: 'POST',
        url: `/api/orgs/${team.id}/invitations`,
        headers: owner.headers(),
        payload: { email: 'dev@example.com', role: 'developer' },
      })
    ).json();
    const dev = await register(h.app, 'dev@example.com', inv.invitationToken);
    const project = await createProject(h.app, owner, { name: 'Site', slug: 'site', organizationId: team.id });
    const { accessToken } = await createToken(h.app, dev, { name: 'dev-cli', permissions: ['read', 'audit'] });
    expect((await h.app.inject({ method: 'GET', url: `/api/projects/${project.id}/audit`, headers: bearer(accessToken) })).statusCode).toBe(200);
    // Demote to viewer: the same token loses audit at once.
    await h.app.inject({ method: 'PATCH', url: `/api/orgs/${team.id}/members/${dev.userId}`, headers: owner.headers(), payload: { role: 'viewer' } });
    const demoted = await h.app.inject({ method: 'GET', url: `/api/projects/${project.id}/audit`, headers: bearer(accessToken) });
    expect(demoted.json().error.code).toBe('SVC_FORBIDDEN');
    // Remove: the project disappears for them.
    await h.app.inject({ method: 'DELETE', url: `/api/orgs/${team.id}/members/${dev.userId}`, headers: owner.headers() });
    const removed = await h.app.inject({ method: 'GET', url: `/api/projects/${project.id}`, headers: bearer(accessToken) });
    expect(removed.json().error.code).toBe('SVC_PROJECT_NOT_FOUND');
  });
});

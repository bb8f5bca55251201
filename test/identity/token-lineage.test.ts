// Tokens minted by a token: they never outlive it, never carry more than it, and die with it.
import { afterEach, describe, expect, it } from 'vitest';
import { revokeProjectTokens } from '../../src/identity/index.js';
import { bearer, createProject, createToken, register, snapshotCounts, startHarness, type Harness } from '../platform/harness.js';

const DAY = 86_400_000;

/** POST /api/tokens authenticated by a bearer token (the raw response, so refusals can be asserted). */
const mint = (h: Harness, parent: string, body: Record<string, unknown>) =>
  h.app.inject({ method: 'POST', url: '/api/tokens', headers: bearer(parent), payload: body });

/** Mint through a token and return the child's raw value and id (throws on refusal). */
async function mintOk(h: Harness, parent: string, body: Record<string, unknown>): Promise<{ accessToken: string; id: string; expiresAt: string }> {
  const res = await mint(h, parent, body);
  if (res.statusCode !== 201) throw new Error(`mint failed ${res.body}`);
  const json = res.json() as { accessToken: string; token: { id: string; expiresAt: string } };
  return { accessToken: json.accessToken, id: json.token.id, expiresAt: json.token.expiresAt };
}

const me = (h: Harness, token: string) => h.app.inject({ method: 'GET', url: '/api/me', headers: bearer(token) });

describe('tokens created by a token', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('a 1-day token cannot mint a token that outlives it: an explicit longer lifetime is refused, the default is clamped', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const parent = await createToken(h.app, owner, { name: 'one-day', permissions: ['read', 'tokens'], expiresInDays: 1 });
    const parentExpiry = h.clock.now() + DAY;

    const before = snapshotCounts(h);
    const longer = await mint(h, parent.accessToken, { name: 'forever', permissions: ['read'], expiresInDays: 365 });
    expect(longer.statusCode).toBe(403);
    expect(longer.json().error).toMatchObject({ code: 'SVC_TOKEN_LIFETIME_EXCEEDED', details: { maxExpiresAt: new Date(parentExpiry).toISOString() } });
    expect(snapshotCounts(h)).toEqual(before);

    // Default lifetime (90 days) is clamped to what the parent has left.
    h.clock.advance(3_600_000);
    const clamped = await mintOk(h, parent.accessToken, { name: 'default', permissions: ['read'] });
    expect(Date.parse(clamped.expiresAt)).toBe(parentExpiry);
    // Asking for exactly a day an hour later is also longer than the parent has left.
    expect((await mint(h, parent.accessToken, { name: 'day', permissions: ['read'], expiresInDays: 1 })).json().error.code).toBe('SVC_TOKEN_LIFETIME_EXCEEDED');

    const stored = h.plane.db.prepare('SELECT parent_id, expires_at FROM access_tokens WHERE id = ?').get(clamped.id) as {
      parent_id: string;
      expires_at: number;
    };
    expect(stored).toEqual({ parent_id: parent.id, expires_at: parentExpiry });

    expect((await me(h, clamped.accessToken)).statusCode).toBe(200);
    h.clock.advance(DAY);
    const late = await me(h, clamped.accessToken);
    expect(late.statusCode).toBe(401);
    expect(late.json().error.code).toBe('SVC_TOKEN_EXPIRED');
  });

  it('a shorter explicit lifetime than the parent has left is kept as asked', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const parent = await createToken(h.app, owner, { name: 'month', permissions: ['read', 'tokens'], expiresInDays: 30 });
    const child = await mintOk(h, parent.accessToken, { name: 'week', permissions: ['read'], expiresInDays: 7 });
    expect(Date.parse(child.expiresAt) - h.clock.now()).toBe(7 * DAY);
  });

  it('permissions cannot exceed the parent token: SVC_TOKEN_PERMISSIONS_EXCEEDED, nothing written', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const parent = await createToken(h.app, owner, { name: 'reader', permissions: ['read', 'tokens'] });
    const before = snapshotCounts(h);
    const wider = await mint(h, parent.accessToken, { name: 'deployer', permissions: ['read', 'deploy', 'admin'] });
    expect(wider.statusCode).toBe(403);
    expect(wider.json().error).toMatchObject({
      code: 'SVC_TOKEN_PERMISSIONS_EXCEEDED',
      details: { exceeded: ['admin', 'deploy'], allowed: ['read', 'tokens'] },
    });
    expect(snapshotCounts(h)).toEqual(before);
    const subset = await mintOk(h, parent.accessToken, { name: 'narrow', permissions: ['read'] });
    expect((await me(h, subset.accessToken)).json().auth.permissions).toEqual(['read']);
  });

  it("a project-scoped parent's child stays on that project", async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const a = await createProject(h.app, owner, { name: 'Alpha', slug: 'alpha' });
    const b = await createProject(h.app, owner, { name: 'Beta', slug: 'beta' });
    const parent = await createToken(h.app, owner, { name: 'alpha', projectId: a.id, permissions: ['read', 'tokens'] });
    expect((await mint(h, parent.accessToken, { name: 'x', projectId: b.id, permissions: ['read'] })).json().error.code).toBe('SVC_TOKEN_SCOPE');
    const child = await mintOk(h, parent.accessToken, { name: 'y', permissions: ['read'] });
    expect((await me(h, child.accessToken)).json().auth.projectId).toBe(a.id);
  });

  it('revoking the parent revokes the child and the grandchild in one transaction; their requests get 401 SVC_TOKEN_REVOKED', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const parent = await createToken(h.app, owner, { name: 'parent', permissions: ['read', 'tokens'] });
    const child = await mintOk(h, parent.accessToken, { name: 'child', permissions: ['read', 'tokens'] });
    const grandchild = await mintOk(h, child.accessToken, { name: 'grandchild', permissions: ['read'] });
    const sibling = await createToken(h.app, owner, { name: 'unrelated', permissions: ['read'] });
    expect((await me(h, grandchild.accessToken)).statusCode).toBe(200);

    const revoked = await h.app.inject({ method: 'DELETE', url: `/api/tokens/${parent.id}`, headers: owner.headers() });
    expect(revoked.json().token).toMatchObject({ id: parent.id, status: 'revoked' });
    for (const token of [parent, child, grandchild]) {
      const res = await me(h, token.accessToken);
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('SVC_TOKEN_REVOKED');
    }
    expect((await me(h, sibling.accessToken)).statusCode).toBe(200);

    const list = (await h.app.inject({ method: 'GET', url: '/api/tokens', headers: { cookie: owner.cookie } })).json().tokens as {
      id: string;
      status: string;
      parentId: string | null;
      revokedAt: string | null;
    }[];
    const byId = new Map(list.map((t) => [t.id, t]));
    expect(byId.get(child.id)).toMatchObject({ status: 'revoked', parentId: parent.id });
    expect(byId.get(grandchild.id)).toMatchObject({ status: 'revoked', parentId: child.id });
    expect(byId.get(sibling.id)).toMatchObject({ status: 'active', parentId: null });
    // One revocation time for the whole tree: it was written by one statement in one transaction.
    expect(new Set([parent.id, child.id, grandchild.id].map((id) => byId.get(id)!.revokedAt)).size).toBe(1);

    const events = h.plane.db.prepare("SELECT metadata FROM audit_events WHERE kind = 'token.revoke' ORDER BY seq").all() as { metadata: string }[];
    expect(events.map((e) => JSON.parse(e.metadata) as { tokenId: string; cascadeFrom?: string })).toEqual([
      expect.objectContaining({ tokenId: parent.id }),
      expect.objectContaining({ tokenId: child.id, cascadeFrom: parent.id }),
      expect.objectContaining({ tokenId: grandchild.id, cascadeFrom: parent.id }),
    ]);
  });

  it('revoking a middle token leaves its parent alive; logging out (DELETE /api/tokens/current) cascades too', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const parent = await createToken(h.app, owner, { name: 'parent', permissions: ['read', 'tokens'] });
    const child = await mintOk(h, parent.accessToken, { name: 'child', permissions: ['read', 'tokens'] });
    const grandchild = await mintOk(h, child.accessToken, { name: 'grandchild', permissions: ['read'] });
    const logout = await h.app.inject({ method: 'DELETE', url: '/api/tokens/current', headers: bearer(child.accessToken) });
    expect(logout.json().token).toMatchObject({ id: child.id, status: 'revoked' });
    expect((await me(h, grandchild.accessToken)).json().error.code).toBe('SVC_TOKEN_REVOKED');
    expect((await me(h, parent.accessToken)).statusCode).toBe(200);
  });

  it('authentication also checks every ancestor (a revocation or expiry written without the cascade still applies)', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const root = await createToken(h.app, owner, { name: 'root', permissions: ['read', 'tokens'] });
    const child = await mintOk(h, root.accessToken, { name: 'child', permissions: ['read', 'tokens'] });
    const grandchild = await mintOk(h, child.accessToken, { name: 'grandchild', permissions: ['read'] });
    const db = h.plane.db;
    db.prepare('UPDATE access_tokens SET revoked_at = ? WHERE id = ?').run(h.clock.now(), root.id);
    const revoked = await me(h, grandchild.accessToken);
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().error.code).toBe('SVC_TOKEN_REVOKED');
    db.prepare('UPDATE access_tokens SET revoked_at = NULL, expires_at = ? WHERE id = ?').run(h.clock.now() - 1, root.id);
    const expired = await me(h, grandchild.accessToken);
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.code).toBe('SVC_TOKEN_EXPIRED');
    // A revoked or expired ancestor also stops the child from minting.
    expect((await mint(h, child.accessToken, { name: 'z', permissions: ['read'] })).json().error.code).toBe('SVC_TOKEN_EXPIRED');
    // A chain whose root row vanished without its descendants (foreign keys off) fails closed.
    db.prepare('UPDATE access_tokens SET expires_at = ? WHERE id = ?').run(h.clock.now() + DAY, root.id);
    expect((await me(h, grandchild.accessToken)).statusCode).toBe(200);
    db.pragma('foreign_keys = OFF');
    db.prepare('DELETE FROM access_tokens WHERE id = ?').run(root.id);
    db.pragma('foreign_keys = ON');
    expect((await me(h, grandchild.accessToken)).json().error.code).toBe('SVC_TOKEN_REVOKED');
    expect((await me(h, child.accessToken)).json().error.code).toBe('SVC_TOKEN_REVOKED');
  });

  it('tokens created from a browser session or a device login have no parent and keep their full lifetime', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const short = await createToken(h.app, owner, { name: 'short', permissions: ['read', 'tokens'], expiresInDays: 1 });
    const long = await h.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: owner.headers(),
      payload: { name: 'long', permissions: ['read', 'deploy', 'tokens'], expiresInDays: 365 },
    });
    expect(long.statusCode).toBe(201);
    const { token, accessToken } = long.json() as { token: { id: string; expiresAt: string; parentId: string | null }; accessToken: string };
    expect(token.parentId).toBeNull();
    expect(Date.parse(token.expiresAt) - h.clock.now()).toBe(365 * DAY);
    await h.app.inject({ method: 'DELETE', url: `/api/tokens/${short.id}`, headers: owner.headers() });
    h.clock.advance(2 * DAY);
    expect((await me(h, accessToken)).statusCode).toBe(200);
    const row = h.plane.db.prepare('SELECT parent_id FROM access_tokens WHERE id = ?').get(token.id) as { parent_id: string | null };
    expect(row.parent_id).toBeNull();

    // Device login: approved in the browser, issued to the polling CLI, no parent either.
    const started = (await h.app.inject({ method: 'POST', url: '/api/device/start', payload: { clientName: 'laptop' } })).json() as {
      deviceCode: string;
      userCode: string;
    };
    await h.app.inject({ method: 'POST', url: '/api/device/approve', headers: owner.headers(), payload: { userCode: started.userCode } });
    h.clock.advance(5_000);
    const issued = (await h.app.inject({ method: 'POST', url: '/api/device/token', payload: { deviceCode: started.deviceCode } })).json() as {
      tokenId: string;
      expiresAt: string;
    };
    expect(Date.parse(issued.expiresAt) - h.clock.now()).toBe(90 * DAY);
    const device = h.plane.db.prepare('SELECT parent_id FROM access_tokens WHERE id = ?').get(issued.tokenId) as { parent_id: string | null };
    expect(device.parent_id).toBeNull();
  });

  it('project deletion revokes the project-scoped tokens and what they minted, not the account-wide parent', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const project = await createProject(h.app, owner, { name: 'Alpha', slug: 'alpha' });
    const parent = await createToken(h.app, owner, { name: 'account', permissions: ['read', 'tokens'] });
    const scoped = await mintOk(h, parent.accessToken, { name: 'scoped', projectId: project.id, permissions: ['read', 'tokens'] });
    const nested = await mintOk(h, scoped.accessToken, { name: 'nested', permissions: ['read'] });
    const count = h.plane.context.db.transaction(() => revokeProjectTokens(h.plane.context, project.id)).immediate();
    expect(count).toBe(2);
    expect((await me(h, scoped.accessToken)).json().error.code).toBe('SVC_TOKEN_REVOKED');
    expect((await me(h, nested.accessToken)).json().error.code).toBe('SVC_TOKEN_REVOKED');
    expect((await me(h, parent.accessToken)).statusCode).toBe(200);
  });
});

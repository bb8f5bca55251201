// Custom domains through the API: validation, one project per domain, ingress routing, audit,
// reload at start, and the token-protected edge lookup GET /_svc/tls/ask.
import { afterEach, describe, expect, it } from 'vitest';
import { tokenMatches } from '../../src/projects/tls-ask.js';
import { bearer, createProject, createToken, invite, personalOrg, register, startHarness, type Harness } from '../platform/harness.js';

const TOKEN = 'edge-ask-token-0123456789';
const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});
async function harness(env: Record<string, string> = { SVC_TLS_ASK_TOKEN: TOKEN }): Promise<Harness> {
  const h = await startHarness({ env });
  open.push(h);
  return h;
}

describe('custom domains', () => {
  it('adds a domain (normalized), routes it in the ingress, lists, removes, and audits both', async () => {
    const h = await harness();
    const owner = await register(h.app, 'owner@example.com');
    const project = await createProject(h.app, owner, { name: 'Shop', slug: 'shop' });
    const add = await h.app.inject({
      method: 'POST',
      url: `/api/projects/${project.id}/domains`,
      headers: owner.headers(),
      payload: { domain: 'Shop.Example.COM.' },
    });
    expect(add.statusCode, add.body).toBe(201);
    expect(add.json()).toMatchObject({ domain: { domain: 'shop.example.com', projectId: project.id } });
    expect(h.plane.ingress.routes.hosts.resolve('shop.example.com')).toBe(project.id);
    const again = await h.app.inject({
      method: 'POST',
      url: `/api/projects/${project.id}/domains`,
      headers: owner.headers(),
      payload: { domain: 'shop.example.com' },
    });
    expect(again.statusCode).toBe(201); // idempotent for the same project

    const list = await h.app.inject({ method: 'GET', url: `/api/projects/${project.id}/domains`, headers: owner.headers() });
    expect(list.json()).toMatchObject({ domains: [{ domain: 'shop.example.com' }], defaultHost: 'shop.localhost' });
    const del = await h.app.inject({ method: 'DELETE', url: `/api/projects/${project.id}/domains/shop.example.com`, headers: owner.headers() });
    expect(del.statusCode).toBe(200);
    expect(h.plane.ingress.routes.hosts.resolve('shop.example.com')).toBeUndefined();
    const gone = await h.app.inject({ method: 'DELETE', url: `/api/projects/${project.id}/domains/shop.example.com`, headers: owner.headers() });
    expect(gone.json().error.code).toBe('SVC_DOMAIN_NOT_FOUND');
    const kinds = (h.plane.db.prepare("SELECT kind FROM audit_events WHERE kind LIKE 'domain.%' ORDER BY seq").all() as { kind: string }[]).map((r) => r.kind);
    expect(kinds).toEqual(['domain.add', 'domain.remove']);
  });

  it('a domain claimed by one project cannot be claimed by another', async () => {
    const h = await harness();
    const owner = await register(h.app, 'owner@example.com');
    const a = await createProject(h.app, owner, { name: 'A', slug: 'site-a' });
    const b = await createProject(h.app, owner, { name: 'B', slug: 'site-b' });
    expect(
      (await h.app.inject({ method: 'POST', url: `/api/projects/${a.id}/domains`, headers: owner.headers(), payload: { domain: 'www.example.org' } }))
        .statusCode,
    ).toBe(201);
    const clash = await h.app.inject({
      method: 'POST',
      url: `/api/projects/${b.id}/domains`,
      headers: owner.headers(),
      payload: { domain: 'WWW.example.org' },
    });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().error.code).toBe('SVC_DOMAIN_TAKEN');
    expect(h.plane.ingress.routes.hosts.resolve('www.example.org')).toBe(a.id);
    expect((h.plane.db.prepare('SELECT COUNT(*) AS n FROM project_domains').get() as { n: number }).n).toBe(1);
  });

  it("rejects malformed domains (invalid) and the platform's own names (reserved, see domains-reserved.test.ts)", async () => {
    const h = await harness();
    const owner = await register(h.app, 'owner@example.com');
    const project = await createProject(h.app, owner, { name: 'Shop', slug: 'shop' });
    for (const domain of ['example', 'a..b.com', '*.example.com', 'example.com:8443', 'http://example.com', 'exa mple.com', '-bad.example.com']) {
      const res = await h.app.inject({ method: 'POST', url: `/api/projects/${project.id}/domains`, headers: owner.headers(), payload: { domain } });
      expect(res.json().error?.code, domain).toBe('SVC_DOMAIN_INVALID');
    }
    for (const domain of ['localhost', 'other.localhost', '127.0.0.1']) {
      const res = await h.app.inject({ method: 'POST', url: `/api/projects/${project.id}/domains`, headers: owner.headers(), payload: { domain } });
      expect(res.json().error?.code, domain).toBe('SVC_DOMAIN_RESERVED');
    }
  });

  it('viewers cannot add domains; scoped tokens of another project cannot either', async () => {
    const h = await harness();
    const owner = await register(h.app, 'owner@example.com');
    const project = await createProject(h.app, owner, { name: 'Shop', slug: 'shop' });
    const other = await createProject(h.app, owner, { name: 'Other', slug: 'other' });
    const viewer = await invite(h.app, owner, await personalOrg(h.app, owner), 'viewer@example.com', 'viewer');
    const asViewer = await h.app.inject({
      method: 'POST',
      url: `/api/projects/${project.id}/domains`,
      headers: viewer.headers(),
      payload: { domain: 'x.example.com' },
    });
    expect(asViewer.json().error.code).toBe('SVC_FORBIDDEN');
    const scoped = await createToken(h.app, owner, { name: 'other', projectId: other.id, permissions: ['read', 'projects'] });
    const res = await h.app.inject({
      method: 'POST',
      url: `/api/projects/${project.id}/domains`,
      headers: bearer(scoped.accessToken),
      payload: { domain: 'x.example.com' },
    });
    expect(res.json().error.code).toBe('SVC_TOKEN_SCOPE');
  });

  it('routes stored domains again after a restart', async () => {
    const h = await harness();
    const owner = await register(h.app, 'owner@example.com');
    const project = await createProject(h.app, owner, { name: 'Shop', slug: 'shop' });
    await h.app.inject({ method: 'POST', url: `/api/projects/${project.id}/domains`, headers: owner.headers(), payload: { domain: 'app.example.net' } });
    await h.plane.close();
    const { buildControlPlane } = await import('../../src/platform.js');
    const again = await buildControlPlane({ config: h.plane.context.config, logger: h.plane.context.logger });
    try {
      expect(again.ingress.routes.hosts.resolve('app.example.net')).toBe(project.id);
    } finally {
      await again.close();
    }
  });
});

describe('GET /_svc/tls/ask', () => {
  it('answers 200 only for served domains and only with the right token (query or header)', async () => {
    const h = await harness();
    const owner = await register(h.app, 'owner@example.com');
    const project = await createProject(h.app, owner, { name: 'Shop', slug: 'shop' });
    await h.app.inject({ method: 'POST', url: `/api/projects/${project.id}/domains`, headers: owner.headers(), payload: { domain: 'shop.example.com' } });
    const ask = (query: string, headers: Record<string, string> = {}) => h.app.inject({ method: 'GET', url: `/_svc/tls/ask?${query}`, headers });

    expect((await ask(`domain=shop.example.com&token=${TOKEN}`)).statusCode).toBe(200);
    expect((await ask('domain=shop.example.com', { 'x-svc-tls-ask-token': TOKEN })).statusCode).toBe(200);
    expect((await ask(`domain=shop.localhost&token=${TOKEN}`)).statusCode).toBe(200); // default host of a project
    const unknown = await ask(`domain=evil.example.com&token=${TOKEN}`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('SVC_TLS_ASK_UNKNOWN_DOMAIN');
    expect((await ask(`domain=nobody.localhost&token=${TOKEN}`)).statusCode).toBe(404);
    for (const bad of ['', 'wrong', `${TOKEN}x`, TOKEN.slice(0, -1)]) {
      const res = await ask(`domain=shop.example.com&token=${encodeURIComponent(bad)}`);
      expect(res.statusCode, bad).toBe(403);
      expect(res.json().error.code).toBe('SVC_TLS_ASK_FORBIDDEN');
    }
    expect((await ask('domain=shop.example.com')).statusCode).toBe(403);
    // Reserved path: answered by the control plane even on an app host.
    expect((await ask(`domain=shop.example.com&token=${TOKEN}`, { host: 'shop.example.com' })).statusCode).toBe(200);
  });

  it('is disabled (503) without SVC_TLS_ASK_TOKEN', async () => {
    const h = await harness({});
    const res = await h.app.inject({ method: 'GET', url: '/_svc/tls/ask?domain=x.example.com&token=anything-at-all-123' });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('SVC_TLS_ASK_DISABLED');
  });

  it('compares tokens by hashing both sides (constant time, length-independent)', () => {
    expect(tokenMatches(TOKEN, TOKEN)).toBe(true);
    expect(tokenMatches(undefined, TOKEN)).toBe(false);
    expect(tokenMatches('', TOKEN)).toBe(false);
    expect(tokenMatches(`${TOKEN}\0`, TOKEN)).toBe(false);
  });
});

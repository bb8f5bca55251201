import { afterEach, describe, expect, it } from 'vitest';
import { CSRF_HEADER } from '../../src/identity/contract.js';
import { ORIGIN, PASSWORD, register, rows, snapshotCounts, startHarness, type Harness } from '../platform/harness.js';

describe('registration and browser sessions', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('bootstrap: the first account registers, gets a personal org as owner and an HttpOnly SameSite session cookie', async () => {
    h = await startHarness();
    const status = await h.app.inject({ method: 'GET', url: '/__svc/auth/registration' });
    expect(status.json()).toEqual({ mode: 'bootstrap', open: true });
    const res = await h.app.inject({
      method: 'POST',
      url: '/__svc/auth/register',
      headers: { origin: ORIGIN },
      payload: { email: 'Owner@Example.com', password: PASSWORD },
    });
    expect(res.statusCode).toBe(201);
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^svc_console=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(res.json().user.email).toBe('owner@example.com');
    const orgs = await h.app.inject({ method: 'GET', url: '/api/orgs', headers: { cookie: cookie.split(';')[0]! } });
    expect(orgs.json().organizations).toEqual([expect.objectContaining({ role: 'owner' })]);
    // The password is stored only as a scrypt hash; the session only as a SHA-256.
    const stored = h.plane.db.prepare('SELECT password_hash FROM users').get() as { password_hash: string };
    expect(stored.password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(stored.password_hash).not.toContain(PASSWORD);
    const session = h.plane.db.prepare('SELECT id_hash FROM sessions').get() as { id_hash: string };
    expect(session.id_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(cookie).not.toContain(session.id_hash);
  });

  it('https: the session cookie is the Secure host-only __Host-svc_console, and only that name is read', async () => {
    const publicUrl = 'https://svc.example.test';
    h = await startHarness({ publicUrl });
    const res = await h.app.inject({
      method: 'POST',
      url: '/__svc/auth/register',
      headers: { origin: publicUrl },
      payload: { email: 'owner@example.com', password: PASSWORD },
    });
    expect(res.statusCode).toBe(201);
    const setCookie = String(res.headers['set-cookie']);
    // Exactly these attributes (their order carries no meaning): no Domain, so the cookie stays host-only.
    const [pair, ...attributes] = setCookie.split('; ');
    expect(pair).toMatch(/^__Host-svc_console=[A-Za-z0-9_-]{43}$/);
    expect(attributes.map((a) => a.replace(/^Max-Age=\d+$/, 'Max-Age=n')).sort()).toEqual(['HttpOnly', 'Max-Age=n', 'Path=/', 'SameSite=Lax', 'Secure']);
    expect(Number(/Max-Age=(\d+)/.exec(setCookie)![1])).toBeGreaterThan(0);
    expect((await h.app.inject({ method: 'GET', url: '/api/me', headers: { cookie: pair! } })).statusCode).toBe(200);
    // Another host may plant a cookie without the prefix; on https it does not count as the session.
    const plain = pair!.replace(/^__Host-/, '');
    expect((await h.app.inject({ method: 'GET', url: '/api/me', headers: { cookie: plain } })).json().error.code).toBe('SVC_AUTH_REQUIRED');
    // A repeated name: the first occurrence counts, with the other cookies around it ignored.
    expect((await h.app.inject({ method: 'GET', url: '/api/me', headers: { cookie: `other=1; ${pair!}; __Host-svc_console=forged` } })).statusCode).toBe(200);
    expect((await h.app.inject({ method: 'GET', url: '/api/me', headers: { cookie: `__Host-svc_console=forged; ${pair!}` } })).json().error.code).toBe(
      'SVC_AUTH_REQUIRED',
    );
    // Sign-out expires the same host-only cookie: a browser ignores a __Host- cookie without Secure and Path=/.
    const csrf = res.json().csrfToken as string;
    const out = await h.app.inject({ method: 'POST', url: '/__svc/auth/logout', headers: { cookie: pair!, origin: publicUrl, [CSRF_HEADER]: csrf } });
    expect(out.statusCode).toBe(200);
    const cleared = String(out.headers['set-cookie']).split('; ');
    expect(cleared[0]).toBe('__Host-svc_console=');
    expect(cleared).toEqual(expect.arrayContaining(['Max-Age=0', 'Path=/', 'HttpOnly', 'SameSite=Lax', 'Secure']));
    expect(cleared.some((a) => a.startsWith('Domain'))).toBe(false);
  });

  it('bootstrap: a second registration is rejected with SVC_REGISTRATION_CLOSED and writes nothing', async () => {
    h = await startHarness();
    await register(h.app, 'first@example.com');
    const before = snapshotCounts(h);
    const res = await h.app.inject({
      method: 'POST',
      url: '/__svc/auth/register',
      headers: { origin: ORIGIN },
      payload: { email: 'second@example.com', password: PASSWORD },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('SVC_REGISTRATION_CLOSED');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(snapshotCounts(h)).toEqual(before);
    expect((await h.app.inject({ method: 'GET', url: '/__svc/auth/registration' })).json()).toEqual({ mode: 'bootstrap', open: false });
  });

  it('concurrent bootstrap registrations: exactly one wins', async () => {
    h = await startHarness();
    const attempts = await Promise.all(
      ['a', 'b', 'c'].map((n) =>
        h.app.inject({ method: 'POST', url: '/__svc/auth/register', headers: { origin: ORIGIN }, payload: { email: `${n}@example.com`, password: PASSWORD } }),
      ),
    );
    expect(attempts.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(attempts.filter((r) => r.statusCode === 403).map((r) => r.json().error.code)).toEqual(['SVC_REGISTRATION_CLOSED', 'SVC_REGISTRATION_CLOSED']);
    expect(rows(h, 'users')).toBe(1);
  });

  it('public mode allows more accounts; disabled mode allows none', async () => {
    h = await startHarness({ registration: 'public' });
    await register(h.app, 'a@example.com');
    await register(h.app, 'b@example.com');
    const dup = await h.app.inject({
      method: 'POST',
      url: '/__svc/auth/register',
      headers: { origin: ORIGIN },
      payload: { email: 'B@example.com', password: PASSWORD },
    });
    expect(dup.json().error.code).toBe('SVC_EMAIL_TAKEN');
    expect(rows(h, 'users')).toBe(2);
    await h.close();
    h = await startHarness({ registration: 'disabled' });
    const res = await h.app.inject({
      method: 'POST',
      url: '/__svc/auth/register',
      headers: { origin: ORIGIN },
      payload: { email: 'a@example.com', password: PASSWORD },
    });
    expect(res.json().error.code).toBe('SVC_REGISTRATION_CLOSED');
    expect(rows(h, 'users')).toBe(0);
  });

  it('invitation-bound registration works even when self-registration is closed, once, for the invited email only', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const orgs = (await h.app.inject({ method: 'GET', url: '/api/orgs', headers: { cookie: owner.cookie } })).json().organizations;
    const inv = await h.app.inject({
      method: 'POST',
      url: `/api/orgs/${orgs[0].id}/invitations`,
      headers: owner.headers(),
      payload: { email: 'dev@example.com', role: 'developer' },
    });
    expect(inv.statusCode).toBe(201);
    const { invitationToken, invitationUrl } = inv.json();
    expect(invitationUrl).toBe(`${ORIGIN}/register?invitation=${encodeURIComponent(invitationToken)}`);
    const before = snapshotCounts(h);
    const wrongEmail = await h.app.inject({
      method: 'POST',
      url: '/__svc/auth/invited-register',
      headers: { origin: ORIGIN },
      payload: { invitation: invitationToken, email: 'other@example.com', password: PASSWORD },
    });
    expect(wrongEmail.json().error.code).toBe('SVC_INVITATION_INVALID');
    const bogus = await h.app.inject({
      method: 'POST',
      url: '/__svc/auth/invited-register',
      headers: { origin: ORIGIN },
      payload: { invitation: 'svcinv_nope', email: 'dev@example.com', password: PASSWORD },
    });
    expect(bogus.json().error.code).toBe('SVC_INVITATION_INVALID');
    expect(snapshotCounts(h)).toEqual(before);
    const dev = await register(h.app, 'dev@example.com', invitationToken);
    const devOrgs = (await h.app.inject({ method: 'GET', url: '/api/orgs', headers: { cookie: dev.cookie } })).json().organizations;
    expect(devOrgs).toEqual(expect.arrayContaining([expect.objectContaining({ id: orgs[0].id, role: 'developer' })]));
    const reuse = await h.app.inject({
      method: 'POST',
      url: '/__svc/auth/invited-register',
      headers: { origin: ORIGIN },
      payload: { invitation: invitationToken, email: 'dev@example.com', password: PASSWORD },
    });
    expect(reuse.json().error.code).toBe('SVC_INVITATION_INVALID');
  });

  it('invitations expire after 7 days', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const orgs = (await h.app.inject({ method: 'GET', url: '/api/orgs', headers: { cookie: owner.cookie } })).json().organizations;
    const { invitationToken } = (
      await h.app.inject({
        method: 'POST',
        url: `/api/orgs/${orgs[0].id}/invitations`,
        headers: owner.headers(),
        payload: { email: 'late@example.com', role: 'viewer' },
      })
    ).json();
    h.clock.advance(7 * 86_400_000 + 1);
    const res = await h.app.inject({
      method: 'POST',
      url: '/__svc/auth/invited-register',
      headers: { origin: ORIGIN },
      payload: { invitation: invitationToken, email: 'late@example.com', password: PASSWORD },
    });
    expect(res.json().error.code).toBe('SVC_INVITATION_INVALID');
  });

  it('login: wrong password is SVC_AUTH_INVALID_CREDENTIALS, repeated failures are rate limited', async () => {
    h = await startHarness();
    await register(h.app, 'owner@example.com');
    const bad = () =>
      h.app.inject({
        method: 'POST',
        url: '/__svc/auth/login',
        headers: { origin: ORIGIN },
        payload: { email: 'owner@example.com', password: 'wrong password!' },
      });
    expect((await bad()).json().error.code).toBe('SVC_AUTH_INVALID_CREDENTIALS');
    const unknown = await h.app.inject({
      method: 'POST',
      url: '/__svc/auth/login',
      headers: { origin: ORIGIN },
      payload: { email: 'nobody@example.com', password: 'whatever' },
    });
    expect(unknown.json().error.code).toBe('SVC_AUTH_INVALID_CREDENTIALS');
    for (let i = 0; i < 9; i++) await bad();
    const limited = await bad();
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('SVC_RATE_LIMITED');
    h.clock.advance(15 * 60_000 + 1);
    const ok = await h.app.inject({
      method: 'POST',
      url: '/__svc/auth/login',
      headers: { origin: ORIGIN },
      payload: { email: 'owner@example.com', password: PASSWORD },
    });
    expect(ok.statusCode).toBe(200);
  });

  it('session: GET returns the CSRF token; logout needs CSRF and ends the session', async () => {
    h = await startHarness();
    const b = await register(h.app, 'owner@example.com');
    const session = await h.app.inject({ method: 'GET', url: '/__svc/auth/session', headers: { cookie: b.cookie } });
    expect(session.json().csrfToken).toBe(b.csrf);
    const noCsrf = await h.app.inject({ method: 'POST', url: '/__svc/auth/logout', headers: { cookie: b.cookie, origin: ORIGIN } });
    expect(noCsrf.json().error.code).toBe('SVC_CSRF_INVALID');
    const out = await h.app.inject({ method: 'POST', url: '/__svc/auth/logout', headers: b.headers() });
    expect(out.statusCode).toBe(200);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    const after = await h.app.inject({ method: 'GET', url: '/__svc/auth/session', headers: { cookie: b.cookie } });
    expect(after.json().error.code).toBe('SVC_AUTH_REQUIRED');
  });

  it('sessions expire after the configured lifetime', async () => {
    h = await startHarness({ sessionTtlHours: 1 });
    const b = await register(h.app, 'owner@example.com');
    h.clock.advance(3_600_001);
    const res = await h.app.inject({ method: 'GET', url: '/api/me', headers: { cookie: b.cookie } });
    expect(res.json().error.code).toBe('SVC_AUTH_REQUIRED');
  });
});

describe('CSRF and same-origin checks on state-changing browser requests', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  const attempt = (b: { cookie: string }, headers: Record<string, string>) =>
    h.app.inject({ method: 'POST', url: '/api/projects', headers: { cookie: b.cookie, ...headers }, payload: { name: 'Blog', slug: 'blog' } });

  it('rejects a missing or wrong CSRF token, and a cross-site or missing Origin; nothing is written', async () => {
    h = await startHarness();
    const b = await register(h.app, 'owner@example.com');
    const before = snapshotCounts(h);
    const cases: [Record<string, string>, string][] = [
      [{ origin: ORIGIN }, 'SVC_CSRF_INVALID'],
      // The right token under the app runtime's CSRF header name is not the console's header.
      [{ origin: ORIGIN, 'x-svc-csrf': b.csrf }, 'SVC_CSRF_INVALID'],
      [{ origin: ORIGIN, [CSRF_HEADER]: 'x'.repeat(43) }, 'SVC_CSRF_INVALID'],
      [{ origin: ORIGIN, [CSRF_HEADER]: '' }, 'SVC_CSRF_INVALID'],
      [{ origin: 'https://evil.example', [CSRF_HEADER]: b.csrf }, 'SVC_ORIGIN_REJECTED'],
      [{ origin: 'http://blog.localhost:7070', [CSRF_HEADER]: b.csrf }, 'SVC_ORIGIN_REJECTED'],
      [{ origin: 'null', [CSRF_HEADER]: b.csrf }, 'SVC_ORIGIN_REJECTED'],
      [{ 'sec-fetch-site': 'cross-site', [CSRF_HEADER]: b.csrf }, 'SVC_ORIGIN_REJECTED'],
      [{ [CSRF_HEADER]: b.csrf }, 'SVC_ORIGIN_REJECTED'],
    ];
    for (const [headers, code] of cases) {
      const res = await attempt(b, headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.json().error.code, JSON.stringify(headers)).toBe(code);
    }
    expect(snapshotCounts(h)).toEqual(before);
    expect((await attempt(b, { origin: ORIGIN, [CSRF_HEADER]: b.csrf })).statusCode).toBe(201);
    expect((await attempt(b, { 'sec-fetch-site': 'same-origin', [CSRF_HEADER]: 'nope' })).json().error.code).toBe('SVC_CSRF_INVALID');
  });

  it('one session CSRF token does not work with another session', async () => {
    h = await startHarness({ registration: 'public' });
    const a = await register(h.app, 'a@example.com');
    const b = await register(h.app, 'b@example.com');
    const res = await attempt(a, { origin: ORIGIN, [CSRF_HEADER]: b.csrf });
    expect(res.json().error.code).toBe('SVC_CSRF_INVALID');
  });

  it('login and register refuse a cross-site Origin (login CSRF)', async () => {
    h = await startHarness();
    const before = snapshotCounts(h);
    const reg = await h.app.inject({
      method: 'POST',
      url: '/__svc/auth/register',
      headers: { origin: 'https://evil.example' },
      payload: { email: 'a@example.com', password: PASSWORD },
    });
    expect(reg.json().error.code).toBe('SVC_ORIGIN_REJECTED');
    const viaFetchSite = await h.app.inject({
      method: 'POST',
      url: '/__svc/auth/register',
      headers: { 'sec-fetch-site': 'cross-site' },
      payload: { email: 'a@example.com', password: PASSWORD },
    });
    expect(viaFetchSite.json().error.code).toBe('SVC_ORIGIN_REJECTED');
    expect(snapshotCounts(h)).toEqual(before);
    const form = await h.app.inject({
      method: 'POST',
      url: '/__svc/auth/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=a%40example.com&password=x',
    });
    expect(form.statusCode).toBe(415);
    expect(form.json().error.code).toBe('SVC_UNSUPPORTED_MEDIA_TYPE');
  });
});

// Over a real listener: an app behind the ingress never receives svc access tokens, the console's
// session cookie and CSRF header, the platform's internal x-svc-* headers or client-made forwarding
// headers; its own cookies and auth (including the app runtime's session cookie) pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { CSRF_HEADER, SESSION_COOKIE } from '../../src/identity/contract.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { startListeningPlane, startUpstream, type ListeningPlane, type UpstreamProcess } from './support.js';

let plane: ListeningPlane;
let app: UpstreamProcess;
let account: TestAccount;

interface Echo {
  headers: Record<string, string | undefined>;
  rawHeaders: string[];
}

async function echo(headers: Record<string, string>): Promise<Echo> {
  const res = await request(`${plane.url}/echo`, { headers: { host: `app.localhost:${plane.port}`, ...headers } });
  expect(res.statusCode).toBe(200);
  return (await res.body.json()) as Echo;
}

beforeAll(async () => {
  [plane, app] = await Promise.all([startListeningPlane(), startUpstream('A')]);
  plane.plane.ingress.routes.setProject({ id: 'prj_app', slug: 'app' }, { host: '127.0.0.1', port: app.port }, 'rel_a');
  account = await bootstrapAccount(plane.url);
}, 60_000);

afterAll(async () => {
  await plane?.close();
  await app?.stop();
});

describe('credentials the ingress strips', () => {
  it('drops a real svc token, Proxy-Authorization, x-svc-* headers and spoofed forwarding headers', async () => {
    const got = await echo({
      authorization: `Bearer ${account.accessToken}`,
      'proxy-authorization': `Bearer ${account.accessToken}`,
      'x-svc-tls-ask-token': 'edge-secret-0123456789',
      'x-svc-canary': '1',
      'x-forwarded-for': '6.6.6.6',
      'x-forwarded-host': 'svc.example.com',
      'x-forwarded-proto': 'https',
      forwarded: 'for=6.6.6.6;host=svc.example.com',
      cookie: 'app_pref=dark; cart=3',
    });
    const raw = got.rawHeaders.join('\n');
    expect(raw).not.toContain(account.accessToken);
    expect(raw).not.toContain('edge-secret');
    expect(raw).not.toContain('6.6.6.6');
    expect(raw).not.toContain('svc.example.com');
    expect(got.headers.authorization).toBeUndefined();
    expect(got.headers['proxy-authorization']).toBeUndefined();
    expect(Object.keys(got.headers).filter((n) => n.startsWith('x-svc-'))).toEqual([]);
    expect(got.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(got.headers['x-forwarded-host']).toBe(`app.localhost:${plane.port}`);
    expect(got.headers['x-forwarded-proto']).toBe('http');
    expect(got.headers.forwarded).toBe(`for=127.0.0.1;host="app.localhost:${plane.port}";proto=http`);
    expect(got.headers.cookie).toBe('app_pref=dark; cart=3');
  });

  it('drops the token in Basic credentials (git-style) too', async () => {
    const got = await echo({ authorization: `Basic ${Buffer.from(`x-access-token:${account.accessToken}`).toString('base64')}` });
    expect(got.headers.authorization).toBeUndefined();
  });

  it('drops the console session cookie, its CSRF header and a bearer svc token, keeping the app runtime\u2019s session', async () => {
    // A real console session of a real account, sent alongside the app runtime's own cookie and header.
    expect(account.cookie.startsWith(`${SESSION_COOKIE}=`)).toBe(true);
    const consoleSession = account.cookie.slice(SESSION_COOKIE.length + 1);
    const got = await echo({
      authorization: `Bearer ${account.accessToken}`,
      cookie: `theme=dark; ${account.cookie}; svc_session=app-session-value`,
      [CSRF_HEADER]: account.csrfToken,
      'x-svc-csrf': 'app-csrf-value',
    });
    const raw = got.rawHeaders.join('\n');
    for (const secret of [account.accessToken, consoleSession, account.csrfToken]) expect(raw).not.toContain(secret);
    expect(got.headers.authorization).toBeUndefined();
    expect(got.headers[CSRF_HEADER]).toBeUndefined();
    expect(got.headers.cookie).toBe('theme=dark; svc_session=app-session-value');
    expect(got.headers['x-svc-csrf']).toBe('app-csrf-value');
  });

  it('drops Cookie altogether when the console session was its only cookie', async () => {
    const got = await echo({ cookie: account.cookie });
    expect(got.headers.cookie).toBeUndefined();
    expect(got.rawHeaders.map((h) => h.toLowerCase())).not.toContain('cookie');
  });

  it('passes the app\u2019s own Authorization, cookies and the app runtime\u2019s session cookie and CSRF header', async () => {
    const got = await echo({ authorization: 'Bearer app-issued-token', cookie: 'svc_session=app-session-value; theme=dark', 'x-svc-csrf': 'app-csrf-value' });
    expect(got.headers.authorization).toBe('Bearer app-issued-token');
    expect(got.headers.cookie).toBe('svc_session=app-session-value; theme=dark');
    expect(got.headers['x-svc-csrf']).toBe('app-csrf-value');
  });
});

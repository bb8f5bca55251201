// Platform credentials and internal headers never reach an app; the app's own auth does.
import { describe, expect, it } from 'vitest';
import { carriesSvcToken, isPlatformHeader, PLATFORM_COOKIES, withoutCookies } from '../../src/ingress/platform-credentials.js';
import { upstreamRequestHeaders } from '../../src/ingress/forward-headers.js';
import { CSRF_HEADER, SECURE_SESSION_COOKIE, SESSION_COOKIE } from '../../src/identity/contract.js';
import { CSRF_HEADER as APP_CSRF_HEADER, SESSION_COOKIE as APP_SESSION_COOKIE } from '../../src/runtime/auth/cookies.js';

const TOKEN = `svc_${'a'.repeat(43)}`;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('carriesSvcToken', () => {
  const table: [string, boolean][] = [
    [`Bearer ${TOKEN}`, true],
    [`bearer   ${TOKEN}`, true],
    [`  Bearer ${TOKEN}  `, true],
    [TOKEN, true],
    [`Token ${TOKEN}`, true],
    [`Basic ${TOKEN}`, true],
    [basic('x-access-token', TOKEN), true],
    [basic(TOKEN, ''), true],
    [basic(TOKEN, 'x'), true],
    ['Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig', false],
    ['Bearer app_token_123', false],
    [basic('alice', 'secret'), false],
    [basic('alice', 'not svc_ at the start'), false],
    ['Basic !!!not-base64', false],
    ['Bearer', false],
    ['', false],
    ['Bearer SVC_uppercase-is-not-a-token', false],
  ];
  for (const [value, expected] of table) it(`${value || '(empty)'} → ${expected}`, () => expect(carriesSvcToken(value)).toBe(expected));
});

describe('isPlatformHeader', () => {
  it('covers the console CSRF header and the platform x-svc-* headers but leaves the app runtime its CSRF header', () => {
    for (const name of [
      CSRF_HEADER,
      'x-svc-console-csrf',
      'x-svc-tls-ask-token',
      'x-svc-canary',
      'x-svc-artifact-digest',
      'x-svc-commit-sha',
      'x-svc-repository-id',
      'x-svc-anything',
    ])
      expect(isPlatformHeader(name), name).toBe(true);
    for (const name of [APP_CSRF_HEADER, 'x-svc-csrf', 'x-csrf-token', 'authorization', 'cookie', 'x-svcx', 'svc-thing'])
      expect(isPlatformHeader(name), name).toBe(false);
  });

  it('the console and the app runtime never share a cookie or header name', () => {
    expect(CSRF_HEADER).not.toBe(APP_CSRF_HEADER);
    expect([SESSION_COOKIE, SECURE_SESSION_COOKIE]).not.toContain(APP_SESSION_COOKIE);
  });
});

describe('withoutCookies', () => {
  const names = ['svc_console'];
  const table: [string, string | null][] = [
    ['svc_console=abc', null],
    ['svc_console=abc; app=1', 'app=1'],
    ['app=1; svc_console=abc; theme=dark', 'app=1; theme=dark'],
    ['app=1;svc_console=abc;svc_console=def', 'app=1'],
    ['app=1; my_svc_console=2', 'app=1; my_svc_console=2'],
    ['app=1', 'app=1'],
    ['svc_console_x=1', 'svc_console_x=1'],
    [' ; svc_console=abc ; ', null],
  ];
  for (const [header, expected] of table) it(`${header} → ${expected}`, () => expect(withoutCookies(header, names)).toBe(expected));

  it('returns the same string when no platform cookie is present', () => {
    const header = 'a=1; b=2';
    expect(withoutCookies(header, names)).toBe(header);
  });

  it('strips both names of the console session cookie and never the app runtime\u2019s', () => {
    expect(PLATFORM_COOKIES).toEqual(['svc_console', '__Host-svc_console']);
    expect(withoutCookies('__Host-svc_console=a; svc_session=app; svc_console=b', PLATFORM_COOKIES)).toBe('svc_session=app');
  });
});

describe('upstreamRequestHeaders strips platform credentials', () => {
  const map = (raw: string[], trustProxy = false) => {
    const { headers } = upstreamRequestHeaders(raw, '10.0.0.5', 'https', trustProxy);
    const out: [string, string][] = [];
    for (let i = 0; i < headers.length; i += 2) out.push([headers[i]!, headers[i + 1]!]);
    return out;
  };

  it('removes svc tokens, the console session and CSRF header, Proxy-Authorization and x-svc-* headers, keeps the app\u2019s own auth and cookies', () => {
    const out = map([
      'Host',
      'shop.example.org',
      'Authorization',
      `Bearer ${TOKEN}`,
      'Proxy-Authorization',
      `Bearer ${TOKEN}`,
      'X-Svc-Tls-Ask-Token',
      'edge-secret',
      'X-Svc-Canary',
      '1',
      'X-Svc-Console-Csrf',
      'console-csrf',
      'x-svc-csrf',
      'app-csrf',
      'Cookie',
      'svc_console=console-session; svc_session=app-session; __Host-svc_console=console-session; cart=3',
      'X-Forwarded-For',
      '6.6.6.6',
      'X-Forwarded-Host',
      'svc.example.com',
      'X-Forwarded-Proto',
      'http',
      'Forwarded',
      'for=6.6.6.6',
      'Accept',
      '*/*',
    ]);
    expect(out).toEqual([
      ['host', 'shop.example.org'],
      ['x-svc-csrf', 'app-csrf'],
      ['cookie', 'svc_session=app-session; cart=3'],
      ['accept', '*/*'],
      ['x-forwarded-for', '10.0.0.5'],
      ['x-forwarded-proto', 'https'],
      ['x-forwarded-host', 'shop.example.org'],
      ['forwarded', 'for=10.0.0.5;host=shop.example.org;proto=https'],
    ]);
  });

  it('keeps a non-svc Authorization and strips each svc one of several', () => {
    expect(map(['Host', 'a.localhost', 'Authorization', 'Bearer app-token'])).toContainEqual(['authorization', 'Bearer app-token']);
    expect(map(['Host', 'a.localhost', 'Authorization', basic('alice', 'pw')])).toContainEqual(['authorization', basic('alice', 'pw')]);
    const both = map(['Host', 'a.localhost', 'Authorization', basic('git', TOKEN), 'authorization', 'Bearer app-token']);
    expect(both.filter(([n]) => n === 'authorization')).toEqual([['authorization', 'Bearer app-token']]);
  });

  it('drops Cookie when it held only the console session', () => {
    const out = map(['Host', 'a.localhost', 'Cookie', '__Host-svc_console=console-session']);
    expect(out.map(([n]) => n)).toEqual(['host', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'forwarded']);
  });

  it('strips platform headers behind a trusted proxy too', () => {
    const out = map(['Host', 'a.localhost', 'Authorization', `Bearer ${TOKEN}`, 'X-Svc-Commit-Sha', 'abc', 'X-Forwarded-For', '1.2.3.4'], true);
    expect(out.map(([n]) => n)).toEqual(['host', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'forwarded']);
    expect(out[1]).toEqual(['x-forwarded-for', '1.2.3.4, 10.0.0.5']);
  });
});

import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { chromiumGate, launchChromium } from '../support/chromium.js';
import { register, startHarness, type Harness } from '../platform/harness.js';

describe('server-rendered pages', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('serve HTML with a strict CSP and no inline script, and escape the client name', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const start = (await h.app.inject({ method: 'POST', url: '/api/device/start', payload: { clientName: '<script>alert(1)</script>' } })).json();
    const page = await h.app.inject({ method: 'GET', url: `/device?code=${start.userCode}`, headers: { cookie: owner.cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.body).not.toContain('<script>alert');
    expect(page.body).not.toMatch(/<script>(?!<\/script>)/);
    expect(page.body).toContain(`name="svc-csrf" content="${owner.csrf}"`);
  });

  it('redirect to sign-in without a session and never redirect off-site', async () => {
    h = await startHarness();
    const res = await h.app.inject({ method: 'GET', url: '/device?code=BCDF-GHJK' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/login?next=%2Fdevice%3Fcode%3DBCDF-GHJK');
    const login = await h.app.inject({ method: 'GET', url: '/login?next=//evil.example/x' });
    expect(login.body).toContain('data-next="/device"');
    const closed = await h.app.inject({ method: 'GET', url: '/register' });
    expect(closed.statusCode).toBe(200);
    await register(h.app, 'owner@example.com');
    expect((await h.app.inject({ method: 'GET', url: '/register' })).statusCode).toBe(403);
  });
});

const gate = chromiumGate('device login in a real browser');

describe.skipIf(gate.skip)('device login in a real browser', () => {
  beforeAll(() => gate.assertPresent());
  let h: Harness | undefined;
  let browser: Browser | undefined;
  afterEach(async () => {
    await browser?.close();
    await h?.close();
    browser = undefined;
    h = undefined;
  });

  it('registers the first account, reviews the code and approves; the CLI poll then gets the token', async () => {
    h = await startHarness({ publicUrl: null });
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = h.app.server.address() as { port: number };
    const base = `http://127.0.0.1:${port}`;
    const start = (await (
      await fetch(`${base}/api/device/start`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientName: 'svc CLI test' }),
      })
    ).json()) as {
      deviceCode: string;
      userCode: string;
      verificationUriComplete: string;
    };
    browser = await launchChromium();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(start.verificationUriComplete);
    // Not signed in: sent to /login; follow the link to create the first account.
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.click('a[href^="/register"]');
    await page.fill('#email', 'owner@example.com');
    await page.fill('#password', 'correct horse battery');
    await page.click('#submit');
    await page.waitForURL((url) => url.pathname === '/device');
    expect(await page.textContent('#client-name')).toBe('svc CLI test');
    expect(await page.textContent('#user-code')).toBe(start.userCode);
    await page.click('#approve');
    await page.waitForFunction(() => document.getElementById('result')?.textContent?.includes('Approved'));
    expect(errors).toEqual([]);
    h.clock.advance(5_000);
    const token = await fetch(`${base}/api/device/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ deviceCode: start.deviceCode }),
    });
    expect(token.status).toBe(200);
    const { accessToken } = (await token.json()) as { accessToken: string };
    const me = await fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(((await me.json()) as { user: { email: string } }).user.email).toBe('owner@example.com');
  });
});

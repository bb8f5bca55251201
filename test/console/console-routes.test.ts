// The console plugin on a real Fastify app (createHttpApp, inject): exact files with cache and CSP
// headers, history-routing fallback, JSON 404s for API/asset paths, rebuilds picked up, not-built page.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CONSOLE_CSP,
  consoleApiRoutes,
  consoleFiles,
  defaultConsoleDir,
  isAppHost,
  isConsoleRoute,
  isPlatformHost,
  isServablePath,
} from '../../src/console/index.js';
import { createHttpApp, type HttpApp } from '../../src/core/http/create-http-app.js';
import { createLogger } from '../../src/core/logger.js';
import { ensureConsoleBuilt } from '../support/console-build.js';
import { register, startHarness } from '../platform/harness.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDist(withIndex = true): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-console-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'assets'));
  if (withIndex) writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" src="/assets/app-abc123.js"></script><div id="app"></div>');
  const script = `console.log(${JSON.stringify('x'.repeat(4000))});`;
  writeFileSync(join(dir, 'assets', 'app-abc123.js'), script);
  // The gzip copy the console build (web/vite.config.ts) writes beside each larger text file.
  writeFileSync(join(dir, 'assets', 'app-abc123.js.gz'), gzipSync(script));
  writeFileSync(join(dir, '.env'), 'SECRET=1');
  return dir;
}

/** GET with the path sent byte for byte (node:http does not normalize it). */
function rawGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function appWith(dir = defaultConsoleDir(), appDomain?: string): Promise<HttpApp> {
  const app = await createHttpApp({ logger: createLogger({ level: 'silent' }), bodyLimitBytes: 1024 * 1024, trustProxy: false, version: 'test' });
  app.get('/api/thing', { schema: { response: { 200: z.object({ ok: z.boolean() }) } } }, async () => ({ ok: true }));
  await consoleFiles({ dir, ...(appDomain ? { appDomain } : {}) })(app);
  await app.ready();
  cleanups.push(() => app.close());
  return app;
}

describe('isConsoleRoute', () => {
  it('falls back only for console paths', () => {
    for (const path of ['/', '/projects/demo', '/projects/demo/releases', '/sign-in', '/device-login']) expect(isConsoleRoute(path), path).toBe(true);
    for (const path of ['/api', '/api/nope', '/__svc/auth/nope', '/_svc/x', '/assets/missing.js', '/favicon.ico', '/robots.txt'])
      expect(isConsoleRoute(path), path).toBe(false);
  });
});

describe('isServablePath', () => {
  it('accepts plain paths inside the build and refuses dot segments, dotfiles, backslashes and NUL', () => {
    for (const path of ['/index.html', '/assets/app-abc123.js', '/favicon.ico']) expect(isServablePath(path), path).toBe(true);
    for (const path of [
      '/assets/../index.html',
      '/../package.json',
      '/./index.html',
      '/.env',
      '/assets/.x',
      '//etc/passwd',
      '/assets/',
      'index.html',
      '/a\\..\\b',
      '/a\0b',
    ])
      expect(isServablePath(path), path).toBe(false);
  });
});

describe('isPlatformHost', () => {
  it('serves the console only on loopback names, IP literals and the public URL host', () => {
    for (const host of ['127.0.0.1:7070', 'localhost:7070', '[::1]:7070', '10.0.0.5', undefined]) expect(isPlatformHost(host, null), String(host)).toBe(true);
    expect(isPlatformHost('svc.example.com', 'https://svc.example.com')).toBe(true);
    for (const host of ['gone.localhost:7070', 'shop.example.com', 'deleted-custom-domain.test'])
      expect(isPlatformHost(host, 'https://svc.example.com'), host).toBe(false);
    expect(isPlatformHost('svc.example.com', null)).toBe(false);
  });
});

describe('isAppHost', () => {
  it('treats <anything>.<appDomain> as an app host unless it is the public URL host', () => {
    expect(isAppHost('gone.localhost:7070', 'localhost', null)).toBe(true);
    expect(isAppHost('GONE.LOCALHOST.', 'localhost', null)).toBe(true);
    for (const host of ['127.0.0.1:7070', 'localhost:7070', '[::1]:7070', undefined]) expect(isAppHost(host, 'localhost', null), String(host)).toBe(false);
    expect(isAppHost('svc.example.com', 'example.com', 'https://svc.example.com')).toBe(false);
    expect(isAppHost('shop.example.com', 'example.com', 'https://svc.example.com')).toBe(true);
  });
});

describe('console routes', () => {
  it('serves index.html with the strict CSP and no-cache at / and at every console path', async () => {
    const app = await appWith(tempDist());
    for (const url of ['/', '/projects/demo/releases?x=1', '/sign-in']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.body).toContain('<div id="app">');
    }
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
  });

  it('serves hashed assets with a long immutable cache and gzip when accepted', async () => {
    const app = await appWith(tempDist());
    const plain = await app.inject({ method: 'GET', url: '/assets/app-abc123.js' });
    expect(plain.statusCode).toBe(200);
    // A JavaScript MIME type (what @fastify/static names .js), which browsers require for module scripts under nosniff.
    expect(plain.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(plain.headers['vary']).toBe('accept-encoding');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const zipped = await app.inject({ method: 'GET', url: '/assets/app-abc123.js', headers: { 'accept-encoding': 'gzip, br' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['content-type']).toBe(plain.headers['content-type']);
    expect(zipped.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(plain.body);
    expect(zipped.rawPayload.length).toBeLessThan(plain.rawPayload.length);
    const head = await app.inject({ method: 'HEAD', url: '/assets/app-abc123.js' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
  });

  it('lets browsers revalidate index.html (no-cache) with its ETag', async () => {
    const app = await appWith(tempDist());
    const first = await app.inject({ method: 'GET', url: '/projects/demo' });
    expect(first.headers['cache-control']).toBe('no-cache');
    const etag = String(first.headers['etag']);
    expect(etag).not.toBe('undefined');
    const again = await app.inject({ method: 'GET', url: '/projects/demo', headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('serves the real console build gzipped, with the gzip copies its build writes', async () => {
    await ensureConsoleBuilt();
    const app = await appWith();
    const index = await app.inject({ method: 'GET', url: '/' });
    expect(index.statusCode).toBe(200);
    const script = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec(index.body)?.[1];
    expect(script, index.body).toBeDefined();
    const plain = await app.inject({ method: 'GET', url: script! });
    const zipped = await app.inject({ method: 'GET', url: script!, headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.rawPayload).equals(plain.rawPayload)).toBe(true);
    expect(zipped.rawPayload.length * 2).toBeLessThan(plain.rawPayload.length);
  }, 180_000);

  it('leaves API routes alone and answers unknown API, auth and asset paths with a JSON 404', async () => {
    const app = await appWith(tempDist());
    expect((await app.inject({ method: 'GET', url: '/api/thing' })).json()).toEqual({ ok: true });
    for (const url of [
      '/api/nope',
      '/__svc/auth/nope',
      '/_svc/whatever',
      '/assets/gone-123.js',
      '/favicon.ico',
      '/assets/..%2Findex.html',
      '/.env',
      '/assets/',
      '/assets/app-abc123.js%00',
    ]) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toMatchObject({ error: { code: 'SVC_NOT_FOUND' } });
    }
    // Non-GET methods on console paths are not routed to the console.
    expect((await app.inject({ method: 'POST', url: '/projects/demo', payload: {} })).statusCode).toBe(404);
  });

  it('sends nothing outside the build for raw dot segments on a real socket (inject would normalize them)', async () => {
    const app = await appWith(tempDist());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    for (const path of [
      '/assets/../index.html',
      '/assets/%2e%2e/index.html',
      '/%2e%2e/%2e%2e/etc/hosts.txt',
      '/assets/..%2F..%2Fpackage.json',
      '/assets/%2E%2E%5Cindex.html',
    ]) {
      const res = await rawGet(port, path);
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.body), path).toMatchObject({ error: { code: 'SVC_NOT_FOUND' } });
    }
    // A path without a file extension is a console route: the app's index.html, never the file it names.
    const fallback = await rawGet(port, '/%2e%2e/%2e%2e/%2e%2e/etc/passwd');
    expect(fallback.status).toBe(200);
    expect(fallback.body).toContain('<div id="app">');
    expect((await rawGet(port, '/assets/app-abc123.js')).status).toBe(200);
  });

  it('never serves the console on an app host that no project serves', async () => {
    const app = await appWith(tempDist(), 'localhost');
    const res = await app.inject({ method: 'GET', url: '/', headers: { host: 'deleted-site.localhost:7070' } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: { code: 'SVC_NOT_FOUND' } });
    expect((await app.inject({ method: 'GET', url: '/', headers: { host: '127.0.0.1:7070' } })).statusCode).toBe(200);
  });

  it('shows how to build the console when web/dist is missing, and picks up a build without restart', async () => {
    const dir = tempDist(false);
    const app = await appWith(dir);
    const missing = await app.inject({ method: 'GET', url: '/' });
    expect(missing.statusCode).toBe(503);
    expect(missing.body).toContain('npm run build:web');
    writeFileSync(join(dir, 'index.html'), '<!doctype html><div id="app">v1</div>');
    expect((await app.inject({ method: 'GET', url: '/' })).body).toContain('v1');
    writeFileSync(join(dir, 'index.html'), '<!doctype html><div id="app">v2</div>');
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(dir, 'index.html'), later, later);
    expect((await app.inject({ method: 'GET', url: '/projects/x' })).body).toContain('v2');
  });
});

describe('GET /api/console/session (on the whole control plane)', () => {
  it('answers 200 signed out, with the user and CSRF token for a session, and never for a bearer token', async () => {
    const h = await startHarness();
    cleanups.push(() => h.close());
    const out = await h.app.inject({ method: 'GET', url: consoleApiRoutes.session });
    expect(out.statusCode).toBe(200);
    expect(out.json()).toEqual({ signedIn: false, session: null });
    const stale = await h.app.inject({ method: 'GET', url: consoleApiRoutes.session, headers: { cookie: 'svc_console=not-a-session' } });
    expect(stale.json()).toEqual({ signedIn: false, session: null });

    const browser = await register(h.app, 'console@example.com');
    const signedIn = await h.app.inject({ method: 'GET', url: consoleApiRoutes.session, headers: { cookie: browser.cookie } });
    expect(signedIn.json()).toMatchObject({ signedIn: true, session: { user: { id: browser.userId, email: 'console@example.com' }, csrfToken: browser.csrf } });
    expect(signedIn.headers['cache-control']).toBe('no-store');
    const bearer = await h.app.inject({ method: 'GET', url: consoleApiRoutes.session, headers: { cookie: browser.cookie, authorization: 'Bearer svc_x' } });
    expect(bearer.json()).toEqual({ signedIn: false, session: null });
  });

  it('serves the console at / on the full platform while API routes keep answering JSON', async () => {
    const h = await startHarness();
    cleanups.push(() => h.close());
    const root = await h.app.inject({ method: 'GET', url: '/' });
    expect([200, 503]).toContain(root.statusCode); // 503 only when web/dist is not built in this checkout
    expect(root.headers['content-security-policy']).toBe(CONSOLE_CSP);
    const api = await h.app.inject({ method: 'GET', url: '/api/nothing-here' });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toMatchObject({ error: { code: 'SVC_NOT_FOUND' } });
    expect((await h.app.inject({ method: 'GET', url: '/login' })).headers['content-type']).toContain('text/html');
  });
});

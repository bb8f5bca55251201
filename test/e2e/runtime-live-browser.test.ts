// End to end: two signed-in users in headless Chromium, each on the runtime's live task list, each
// adding a task through the client (CSRF token from <meta name="svc-csrf">) and seeing the other's.
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCsrfMeta } from '../../src/runtime/auth/render-csrf-meta.js';
import { createFetchHandler } from '../../src/runtime/http/create-fetch-handler.js';
import { openDatabase } from '../../src/runtime/index.js';
import { createLiveRoute, createNodeLiveServer, type LiveRouteHandle } from '../../src/runtime/live/index.js';
import { chromiumGate, launchChromium } from '../support/chromium.js';
import { bundlePageScript, renderPage } from '../runtime/live/support/browser-page.js';
import { authedBackend } from '../runtime/live/support/tasks-backend.js';

const gate = chromiumGate('live queries in a real browser');

let dir: string;
let server: Server;
let live: LiveRouteHandle;
let db: ReturnType<typeof openDatabase>;
let browser: Browser;
let url: string;

beforeAll(async () => {
  gate.assertPresent();
  dir = mkdtempSync(join(tmpdir(), 'svc-live-e2e-'));
  db = openDatabase(authedBackend.schema, { path: join(dir, 'app.db') });
  live = createLiveRoute({ heartbeatMs: 1_000 });
  const handler = createFetchHandler(authedBackend, db, { live, onError: (e) => console.error(e) });
  const script = await bundlePageScript();
  server = createNodeLiveServer(async (request) => {
    if (handler.matches(request)) return handler(request);
    const { pathname } = new URL(request.url);
    if (pathname === '/page.js') return new Response(script, { headers: { 'content-type': 'text/javascript; charset=utf-8' } });
    if (pathname !== '/') return new Response('not found', { status: 404 });
    // Server rendering: the CSRF meta of the session and a seed snapshot (value + revision) for the live query.
    const session = handler.session(request);
    const seed = session ? handler.engine.runQuery('tasks/list', { list: 'e2e' }, session.identity) : null;
    const page = renderPage(renderCsrfMeta(session), seed && { value: seed.value, revision: seed.revision });
    return new Response(page, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  live?.close();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function signedInPage(email: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  const status = await page.evaluate(async (email) => {
    const res = await fetch('/__svc/auth/signup', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'correct horse battery' }),
    });
    return res.status;
  }, email);
  expect(status).toBe(201);
  await page.reload();
  await expect.poll(() => page.locator('meta[name="svc-csrf"]').getAttribute('content')).toMatch(/.{16,}/);
  return page;
}

const texts = (page: Page): Promise<string[]> => page.locator('#tasks li').allTextContents();

async function add(page: Page, text: string): Promise<void> {
  await page.fill('#text', text);
  await page.click('#add button');
}

describe.skipIf(gate.skip)('live queries in a real browser', () => {
  it('two clients see each other’s mutations', async () => {
    const alice = await signedInPage('alice@example.test');
    const bob = await signedInPage('bob@example.test');
    await expect.poll(() => alice.evaluate(() => document.body.dataset.version)).toBe('0');

    await add(alice, 'from alice');
    await expect.poll(() => texts(bob), { timeout: 10_000 }).toEqual(['from alice']);
    await add(bob, 'from bob');
    await expect.poll(() => texts(alice), { timeout: 10_000 }).toEqual(['from alice', 'from bob']);
    await expect.poll(() => texts(bob)).toEqual(['from alice', 'from bob']);

    for (const page of [alice, bob]) {
      expect(await page.evaluate(() => document.body.dataset.error)).toBe('');
      expect(await page.evaluate(() => document.body.dataset.version)).toBe('2');
    }
    // A fresh page is server-rendered with the current list (seed) and stays live.
    const carol = await signedInPage('carol@example.test');
    expect(await texts(carol)).toEqual(['from alice', 'from bob']);
    await add(carol, 'from carol');
    await expect.poll(() => texts(alice), { timeout: 10_000 }).toEqual(['from alice', 'from bob', 'from carol']);
  });
});

// The inventory page in a real Chromium: nothing executes, it cannot be framed, downloads send no referrer.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openBackend, sendFetchResponse, toFetchRequest, type BucketManager, type OpenedBackend } from '../../../src/runtime/index.js';
import { chromiumGate, launchChromium } from '../../support/chromium.js';
import { authBackend } from '../support/tasks-backend.js';
import { tempBuckets } from '../buckets-images/support.js';

const gate = chromiumGate('inventory page in Chromium');

let browser: Browser;
let env: ReturnType<typeof tempBuckets>;
let manager: BucketManager;
let backend: OpenedBackend;
let app: Server;
let attacker: Server;
let appUrl: string;
let attackerUrl: string;
const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];

beforeAll(async () => {
  gate.assertPresent();
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

beforeEach(async () => {
  seen.length = 0;
  env = tempBuckets();
  manager = await env.open({ definitions: [{ name: 'docs', ownership: 'user', visibility: 'private', allowedContentTypes: ['text/plain'] }] });
  backend = openBackend(authBackend, { buckets: manager, onError: () => undefined });
  app = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    if (req.url === '/frameable') {
      // Positive control: the same app serving a page without anti-framing headers renders inside the frame.
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Files</title><h1>Files</h1>');
      return;
    }
    void backend.fetch(toFetchRequest(req, {}, res)).then((response) => sendFetchResponse(res, response));
  });
  appUrl = await listen(app);
  attacker = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<!doctype html><title>evil</title><iframe id="f" src="${appUrl}/__svc/buckets?bucket=docs"></iframe><iframe id="c" src="${appUrl}/frameable"></iframe>`,
    );
  });
  attackerUrl = await listen(attacker);
});

afterEach(async () => {
  await new Promise<void>((resolve) => app.close(() => resolve()));
  await new Promise<void>((resolve) => attacker.close(() => resolve()));
  backend.close();
  await env.cleanup();
});

describe.skipIf(gate.skip)('inventory page in Chromium', () => {
  it('renders without running anything, refuses framing and sends no referrer', async () => {
    const signup = await fetch(`${appUrl}/__svc/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'alice@example.com', password: 'correct horse battery' }),
    });
    const userId = ((await signup.json()) as { user: { id: string } }).user.id;
    const [name, value] = signup.headers.get('set-cookie')!.split(';')[0]!.split('=') as [string, string];
    await manager.bucket('docs').put({ owner: userId, key: 'report.txt', contentType: 'text/plain', body: 'quarterly' });
    await manager.bucket('docs').put({ owner: userId, key: '<img src=x onerror="document.title=1">.txt', contentType: 'text/plain', body: 'x' });

    const context = await browser.newContext({ acceptDownloads: true });
    try {
      await context.addCookies([{ name, value, url: appUrl }]);
      const page = await context.newPage();
      const violations: string[] = [];
      page.on('console', (message) => violations.push(message.text()));
      await page.goto(`${appUrl}/__svc/buckets?bucket=docs`);
      expect(await page.title()).toBe('Files');
      expect(await page.locator('td', { hasText: 'report.txt' }).count()).toBe(1);
      expect(await page.evaluate(() => [document.scripts.length, document.images.length])).toEqual([0, 0]);
      // The hashed stylesheet applies (CSP allows exactly it).
      expect(await page.evaluate(() => getComputedStyle(document.body).marginTop)).toBe('32px');

      const download = page.waitForEvent('download');
      await page.locator('tr', { hasText: 'report.txt' }).getByRole('link', { name: 'download' }).click();
      await (await download).path();
      const read = seen.find((r) => r.url.startsWith('/__svc/buckets/docs/read?cap='));
      expect(read).toBeDefined();
      expect(read!.headers.referer).toBeUndefined();

      // Another origin tries to frame the page: the browser refuses to render it.
      const evil = await context.newPage();
      await evil.goto(attackerUrl);
      await evil.waitForTimeout(500);
      const frameTitle = async (id: string) => {
        const frame = await (await evil.$(`iframe#${id}`))!.contentFrame();
        return frame === null
          ? null
          : {
              title: await frame.title().catch(() => null),
              headings: await frame
                .locator('h1')
                .count()
                .catch(() => 0),
            };
      };
      expect(await frameTitle('c')).toEqual({ title: 'Files', headings: 1 });
      const framed = await frameTitle('f');
      expect(framed?.title).not.toBe('Files');
      expect(framed?.headings ?? 0).toBe(0);
      expect(violations.filter((v) => /Refused to execute/i.test(v))).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});

// The inventory page GET /__svc/buckets through the runtime Fetch handler with real sessions.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openBackend, type BucketManager, type OpenedBackend } from '../../../src/runtime/index.js';
import { INVENTORY_CSP, renderInventory } from '../../../src/runtime/buckets/inventory/render-inventory.js';
import { authBackend } from '../support/tasks-backend.js';
import { tempBuckets } from '../buckets-images/support.js';

const ORIGIN = 'http://app.localhost:3000';
const definitions = [
  { name: 'docs', ownership: 'user' as const, visibility: 'private' as const, allowedContentTypes: ['text/plain'] },
  { name: 'site', ownership: 'app' as const, visibility: 'public' as const, browserAccess: 'public' as const, allowedContentTypes: ['text/plain'] },
  { name: 'internal', ownership: 'app' as const, visibility: 'private' as const, browserAccess: 'server' as const, allowedContentTypes: ['text/plain'] },
];

let env: ReturnType<typeof tempBuckets>;
let manager: BucketManager;
let backend: OpenedBackend;
let now = Date.UTC(2030, 0, 1);

beforeEach(async () => {
  now = Date.UTC(2030, 0, 1);
  env = tempBuckets();
  manager = await env.open({ definitions, clock: () => now });
  backend = openBackend(authBackend, { buckets: manager, onError: () => undefined });
});

afterEach(async () => {
  backend.close();
  await env.cleanup();
});

async function signUp(email: string): Promise<{ cookie: string; userId: string }> {
  const response = await backend.fetch(
    new Request(`${ORIGIN}/__svc/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'correct horse battery' }),
    }),
  );
  expect(response.status).toBe(201);
  const body = (await response.json()) as { user: { id: string } };
  return { cookie: response.headers.get('set-cookie')!.split(';')[0]!, userId: body.user.id };
}

function page(query = '', cookie?: string): Promise<Response> {
  return backend.fetch(new Request(`${ORIGIN}/__svc/buckets${query}`, { headers: cookie === undefined ? {} : { cookie } }));
}

function expectLockedDown(response: Response): void {
  expect(response.headers.get('cache-control')).toMatch(/no-store/);
  expect(response.headers.get('x-frame-options')).toBe('DENY');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  const csp = response.headers.get('content-security-policy')!;
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("script-src 'none'");
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|nonce-|strict-dynamic|https?:|\*/);
  const scriptSrc = csp
    .split(';')
    .map((d) => d.trim())
    .filter((d) => d.startsWith('script-src'));
  expect(scriptSrc).toEqual(["script-src 'none'"]);
}

const links = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replaceAll('&#38;', '&'));

describe('inventory page', () => {
  it('fault: requires a session (401, or 303 to the sign-in page when configured)', async () => {
    const response = await page();
    expect(response.status).toBe(401);
    expectLockedDown(response);
    expect(await response.text()).not.toMatch(/<script/i);
    expect((await page('', 'svc_session=forged-token')).status).toBe(401);
    const redirecting = await env.open({ definitions, inventory: { signInPath: '/login' } }).catch((e: unknown) => e);
    // A second manager on the same catalog is fine for this check.
    const other = openBackend(authBackend, { buckets: redirecting as BucketManager, onError: () => undefined });
    const redirect = await other.fetch(new Request(`${ORIGIN}/__svc/buckets`));
    expect([redirect.status, redirect.headers.get('location')]).toEqual([303, '/login']);
    other.close();
  });

  it('fault: response headers forbid caching, framing, referrers and scripts; keys are escaped', async () => {
    const alice = await signUp('alice@example.com');
    await manager.bucket('docs').put({ owner: alice.userId, key: '<script>alert(1)</script>.txt', contentType: 'text/plain', body: 'x' });
    await manager.bucket('docs').put({ owner: alice.userId, key: '"><img src=x onerror=alert(1)>.txt', contentType: 'text/plain', body: 'y' });
    await manager.bucket('docs').put({ owner: alice.userId, key: '<script>x.txt', contentType: 'text/plain', body: 'z' });
    const response = await page('?bucket=docs', alice.cookie);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expectLockedDown(response);
    expect(response.headers.get('content-security-policy')).toBe(INVENTORY_CSP);
    const html = await response.text();
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img/i);
    // No real tag carries an event handler (escaped text may still spell one out harmlessly).
    const tags = html.match(/<[a-z][^>]*>/gi) ?? [];
    expect(tags.filter((t) => /\son\w+=/i.test(t.replace(/"[^"]*"/g, '""')))).toEqual([]);
    expect(tags.some((t) => t.startsWith('<img'))).toBe(false);
    expect(html).toContain('>&#60;script&#62;alert(1)&#60;/</a>'); // a folder segment, escaped
    expect(html).toContain('<td>&#60;script&#62;x.txt</td>');
    expect(html).toContain('<meta name="referrer" content="no-referrer">');
  });

  it('fault: never lists another user partition, whatever the query says', async () => {
    const alice = await signUp('alice@example.com');
    const bob = await signUp('bob@example.com');
    await manager.bucket('docs').put({ owner: alice.userId, key: 'alice-private.txt', contentType: 'text/plain', body: 'a' });
    await manager.bucket('docs').put({ owner: bob.userId, key: 'bob-notes.txt', contentType: 'text/plain', body: 'b' });
    for (const query of [
      '?bucket=docs',
      `?bucket=docs&owner=${alice.userId}`,
      `?bucket=docs&prefix=alice`,
      `?bucket=docs&userId=${alice.userId}`,
      '?bucket=docs&cursor=a',
    ]) {
      const html = await (await page(query, bob.cookie)).text();
      expect(html).not.toContain('alice-private');
      expect(html).not.toContain(alice.userId);
    }
    expect(await (await page('?bucket=docs', bob.cookie)).text()).toContain('bob-notes.txt');
    expect(await (await page('?bucket=docs', alice.cookie)).text()).toContain('alice-private.txt');
  });

  it('omits server-only buckets and shows app buckets with opaque public URLs', async () => {
    const alice = await signUp('alice@example.com');
    await manager.bucket('internal').put({ key: 'hidden.txt', contentType: 'text/plain', body: 'h' });
    await manager.bucket('site').put({ key: 'about.txt', contentType: 'text/plain', body: 'public' });
    const home = await (await page('', alice.cookie)).text();
    expect(home).toContain('?bucket=docs');
    expect(home).toContain('?bucket=site');
    expect(home).not.toContain('internal');
    const asked = await (await page('?bucket=internal', alice.cookie)).text();
    expect(asked).not.toContain('hidden.txt');
    expect(asked).toContain('No such bucket.');
    const site = await (await page('?bucket=site', alice.cookie)).text();
    const download = links(site).find((l) => l.startsWith('/__svc/files/'))!;
    expect(download).toMatch(/^\/__svc\/files\/p[0-9a-z]+\/[0-9a-f]{64}$/);
    expect(download).not.toContain('about.txt');
    expect(await (await backend.fetch(new Request(`${ORIGIN}${download}`))).text()).toBe('public');
  });

  it('pages at 100 objects and navigates key prefixes', async () => {
    const alice = await signUp('alice@example.com');
    const docs = manager.bucket('docs');
    for (let i = 0; i < 130; i += 1)
      await docs.put({ owner: alice.userId, key: `f${String(i).padStart(3, '0')}.txt`, contentType: 'text/plain', body: `${i}` });
    await docs.put({ owner: alice.userId, key: 'zz/deep/inner.txt', contentType: 'text/plain', body: 'deep' });
    const first = await (await page('?bucket=docs', alice.cookie)).text();
    expect(first.match(/>download</g)).toHaveLength(100);
    const next = links(first).find((l) => l.includes('cursor='))!;
    expect(next).toContain('cursor=f099.txt');
    const second = await (await page(next.slice('/__svc/buckets'.length), alice.cookie)).text();
    expect(second.match(/>download</g)).toHaveLength(30);
    expect(second).toContain('>zz/</a>');
    expect(links(second).some((l) => l === '/__svc/buckets?bucket=docs&prefix=zz%2F')).toBe(true);
    const folder = await (await page('?bucket=docs&prefix=zz%2F', alice.cookie)).text();
    expect(folder).toContain('>deep/</a>');
    const deep = await (await page('?bucket=docs&prefix=zz%2Fdeep%2F', alice.cookie)).text();
    expect(deep).toContain('>inner.txt<');
    expect(deep.match(/>download</g)).toHaveLength(1);
  });

  it('links private objects through five-minute read capabilities', async () => {
    const alice = await signUp('alice@example.com');
    const bob = await signUp('bob@example.com');
    await manager.bucket('docs').put({ owner: alice.userId, key: 'report.txt', contentType: 'text/plain', body: 'quarterly' });
    const html = await (await page('?bucket=docs', alice.cookie)).text();
    const link = links(html).find((l) => l.includes('/read?cap='))!;
    expect(link).toMatch(/^\/__svc\/buckets\/docs\/read\?cap=/);
    const read = await backend.fetch(new Request(`${ORIGIN}${link}`, { headers: { cookie: alice.cookie } }));
    expect([read.status, await read.text()]).toEqual([200, 'quarterly']);
    // Another signed-in user cannot use alice's link.
    expect((await backend.fetch(new Request(`${ORIGIN}${link}`, { headers: { cookie: bob.cookie } }))).status).toBe(403);
    now += 4 * 60 * 1000;
    expect((await backend.fetch(new Request(`${ORIGIN}${link}`))).status).toBe(200);
    now += 2 * 60 * 1000;
    expect((await backend.fetch(new Request(`${ORIGIN}${link}`))).status).toBe(403);
  });

  it('renders usage and an empty state (pure renderer)', () => {
    const html = renderInventory({
      basePath: '/__svc/buckets',
      email: 'a@example.com',
      buckets: [{ name: 'docs', description: '', ownership: 'user', visibility: 'private' }],
      bucket: 'docs',
      prefix: '',
      folders: [],
      entries: [],
      nextCursor: null,
      usage: { objects: 2, bytes: 2048, reservedObjects: 1, reservedBytes: 10 },
      message: null,
    });
    expect(html).toContain('2 objects, 2.0 KiB (1 uploads pending, 10 B reserved)');
    expect(html).toContain('No files here.');
    expect(html).not.toMatch(/<script/i);
  });
});

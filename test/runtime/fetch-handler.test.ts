import { afterEach, describe, expect, it } from 'vitest';
import { createFetchHandler, openBackend, openDatabase, type AppDatabase, type LiveRequestContext } from '../../src/runtime/index.js';
import { backend } from './support/tasks-backend.js';

const ORIGIN = 'http://app.localhost:3000';
let db: AppDatabase | undefined;
afterEach(() => db?.close());

function post(path: string, body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function json(response: Response): Promise<{ status: number; body: Record<string, unknown> & { error?: { code: string; message: string } } }> {
  return { status: response.status, body: (await response.json()) as Record<string, unknown> & { error?: { code: string; message: string } } };
}

function setup(options: Parameters<typeof createFetchHandler>[2] = {}) {
  db = openDatabase(backend.schema);
  return createFetchHandler(backend, db, options);
}

describe('createFetchHandler', () => {
  it('serves the manifest with function kinds and argument schemas', async () => {
    const handle = setup();
    const { status, body } = await json(await handle(new Request(`${ORIGIN}/__svc/manifest`)));
    expect(status).toBe(200);
    const functions = body.functions as Array<{ path: string; kind: string; args: unknown }>;
    expect(functions.find((f) => f.path === 'notes/add')).toMatchObject({
      kind: 'mutation',
      args: {
        type: 'object',
        fields: { title: { type: 'string' }, priority: { type: 'number', integer: true, min: 0 }, tag: { type: 'string', optional: true } },
      },
    });
    expect(functions.find((f) => f.path === 'notes/list')?.kind).toBe('query');
    expect(body.auth).toBe(false);
  });

  it('runs mutations and queries over POST and returns the revision', async () => {
    const handle = setup();
    const added = await json(await handle(post('/__svc/mutation/notes/add', { title: 'a', priority: 1 })));
    expect(added).toMatchObject({ status: 200, body: { revision: 1 } });
    const listed = await json(await handle(post('/__svc/query/notes/list', {})));
    expect(listed.status).toBe(200);
    expect(listed.body.value).toEqual([expect.objectContaining({ _id: added.body.value, title: 'a' })]);
  });

  it('answers bad input with stable codes', async () => {
    const handle = setup();
    expect((await json(await handle(post('/__svc/mutation/notes/add', { title: 3 })))).body.error?.code).toBe('SVC_RUNTIME_INVALID_ARGUMENTS');
    expect((await json(await handle(post('/__svc/query/notes/missing', {})))).status).toBe(404);
    expect((await json(await handle(post('/__svc/query/notes/add', {})))).body.error?.code).toBe('SVC_RUNTIME_UNKNOWN_FUNCTION');
    expect((await json(await handle(post('/__svc/mutation/notes/add', '{nope')))).body.error?.code).toBe('SVC_RUNTIME_MALFORMED_JSON');
    expect((await json(await handle(post('/__svc/mutation/notes/add', { title: 'x'.repeat(300 * 1024), priority: 1 })))).status).toBe(413);
    expect((await json(await handle(new Request(`${ORIGIN}/__svc/query/notes/list`)))).status).toBe(405);
    expect((await json(await handle(new Request(`${ORIGIN}/__svc/nothing`)))).body.error?.code).toBe('SVC_RUNTIME_NOT_FOUND');
  });

  it('maps a stale ifVersion to 409 SVC_RUNTIME_CONFLICT', async () => {
    const handle = setup();
    const id = (await json(await handle(post('/__svc/mutation/notes/add', { title: 'a', priority: 1 })))).body.value;
    await handle(post('/__svc/mutation/notes/setDone', { id, done: true, ifVersion: 1 }));
    const stale = await json(await handle(post('/__svc/mutation/notes/setDone', { id, done: false, ifVersion: 1 })));
    expect(stale.status).toBe(409);
    expect(stale.body.error?.code).toBe('SVC_RUNTIME_CONFLICT');
  });

  it('redacts internal failures and reports them to onError; app errors pass through', async () => {
    const reported: unknown[] = [];
    const handle = setup({ onError: (error) => reported.push(error) });
    const thrown = await handle(post('/__svc/mutation/notes/addThenThrow', { title: 'x' }));
    const text = await thrown.text();
    expect(thrown.status).toBe(500);
    expect(text).not.toContain('secret internal detail');
    expect(JSON.parse(text)).toEqual({ error: { code: 'SVC_RUNTIME_INTERNAL', message: 'Internal error.' } });
    expect(String(reported[0])).toContain('secret internal detail');
    const huge = await json(await handle(post('/__svc/mutation/notes/addThenHuge', { title: 'x' })));
    expect(huge).toMatchObject({ status: 500, body: { error: { code: 'SVC_RUNTIME_OUTPUT_TOO_LARGE', message: 'Internal error.' } } });
    const app = await json(await handle(post('/__svc/mutation/notes/addThenAppError', { title: 'x' })));
    expect(app).toMatchObject({ status: 400, body: { error: { code: 'SVC_RUNTIME_APP_ERROR', message: 'Title not allowed', data: { field: 'title' } } } });
    const count = await json(await handle(post('/__svc/query/notes/count', {})));
    expect(count.body.value).toBe(0);
  });

  it('rejects cross-site requests by Origin and Sec-Fetch-Site; allows same-origin and non-browser callers', async () => {
    const handle = setup({ allowedOrigins: ['https://trusted.example'] });
    const evil = await json(await handle(post('/__svc/mutation/notes/add', { title: 'a', priority: 1 }, { origin: 'https://evil.example' })));
    expect(evil).toMatchObject({ status: 403, body: { error: { code: 'SVC_RUNTIME_CROSS_SITE' } } });
    expect((await handle(post('/__svc/query/notes/list', {}, { origin: 'null' }))).status).toBe(403);
    expect((await handle(new Request(`${ORIGIN}/__svc/manifest`, { headers: { 'sec-fetch-site': 'cross-site' } }))).status).toBe(403);
    expect((await handle(post('/__svc/query/notes/list', {}, { origin: ORIGIN, 'sec-fetch-site': 'same-origin' }))).status).toBe(200);
    expect((await handle(post('/__svc/query/notes/list', {}, { origin: 'https://trusted.example' }))).status).toBe(200);
    expect((await handle(post('/__svc/query/notes/list', {}))).status).toBe(200);
    expect((await json(await handle(post('/__svc/query/notes/count', {})))).body.value).toBe(0);
  });

  it('honours a custom prefix', async () => {
    const handle = setup({ prefix: '/api/svc/' });
    expect((await handle(new Request(`${ORIGIN}/api/svc/manifest`))).status).toBe(200);
    expect((await handle(new Request(`${ORIGIN}/__svc/manifest`))).status).toBe(404);
  });

  it('hands live requests to the live route with parsed args and identity', async () => {
    const seen: LiveRequestContext[] = [];
    const handle = setup({ live: { handle: (ctx) => (seen.push(ctx), new Response('ok')) } });
    const args = encodeURIComponent(JSON.stringify({ done: true }));
    expect(await (await handle(new Request(`${ORIGIN}/__svc/live/notes/list?args=${args}`))).text()).toBe('ok');
    expect(seen[0]).toMatchObject({ path: 'notes/list', args: { done: true }, identity: null });
    expect((await json(await handle(new Request(`${ORIGIN}/__svc/live/notes/add`)))).status).toBe(404);
    expect((await json(await handle(new Request(`${ORIGIN}/__svc/live/notes/list?args=%7Bx`)))).body.error?.code).toBe('SVC_RUNTIME_MALFORMED_JSON');
  });

  it('serves repeated queries from the cache until a commit changes the revision', async () => {
    const handle = setup();
    await handle(post('/__svc/mutation/notes/add', { title: 'a', priority: 1 }));
    const first = await json(await handle(post('/__svc/query/notes/count', {})));
    const second = await json(await handle(post('/__svc/query/notes/count', {})));
    expect(second.body).toEqual(first.body);
    await handle(post('/__svc/mutation/notes/add', { title: 'b', priority: 1 }));
    expect((await json(await handle(post('/__svc/query/notes/count', {})))).body).toEqual({ value: 2, revision: 2 });
  });

  it('openBackend opens the database with the spec options and serves under the chosen prefix', async () => {
    const manager = { name: 'bucket manager' };
    // A stand-in object: this test only checks that openBackend keeps what it is given.
    const opened = openBackend(backend, { prefix: '/_app', buckets: manager as never, busyTimeout: 2500 });
    try {
      expect(opened.db.path).toBeNull();
      expect(opened.buckets).toBe(manager);
      expect(opened.db.sqlite.pragma('busy_timeout', { simple: true })).toBe(2500);
      const response = await opened.fetch(post('/_app/mutation/notes/add', { title: 'a', priority: 1 }));
      expect(await response.json()).toMatchObject({ revision: 1 });
      expect(opened.fetch.matches(new Request(`${ORIGIN}/_app/manifest`))).toBe(true);
    } finally {
      opened.close();
    }
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import {
  createFetchHandler,
  openDatabase,
  renderCsrfMeta,
  type AppDatabase,
  type FetchHandler,
  type Identity,
  type LiveRequestContext,
  type LiveRoute,
} from '../../src/runtime/index.js';
import { authBackend } from './support/tasks-backend.js';

const ORIGIN = 'http://app.localhost:3000';
let db: AppDatabase | undefined;
afterEach(() => db?.close());

interface Client {
  cookie: string;
  csrf: string;
  userId: string;
}

function request(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Request {
  return new Request(`${ORIGIN}${path}`, {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

async function signUp(handle: FetchHandler, email: string): Promise<Client> {
  const response = await handle(request('/__svc/auth/signup', { body: { email, password: 'correct horse battery' } }));
  expect(response.status).toBe(201);
  const setCookie = response.headers.get('set-cookie')!;
  expect(setCookie).toMatch(/HttpOnly/);
  expect(setCookie).toMatch(/SameSite=Lax/);
  expect(setCookie).toMatch(/Path=\//);
  const body = (await response.json()) as { user: { id: string }; csrfToken: string };
  return { cookie: setCookie.split(';')[0]!, csrf: body.csrfToken, userId: body.user.id };
}

function call(handle: FetchHandler, client: Client | null, kind: 'query' | 'mutation', path: string, args: unknown, csrf = true) {
  const headers: Record<string, string> = {};
  if (client) headers.cookie = client.cookie;
  if (client && csrf) headers['x-svc-csrf'] = client.csrf;
  return handle(request(`/__svc/${kind}/${path}`, { body: args, headers })).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as { value?: unknown; error?: { code: string } },
  }));
}

function setup(live?: LiveRoute): FetchHandler {
  db = openDatabase(authBackend.schema);
  return createFetchHandler(authBackend, db, live ? { live } : {});
}

describe('built-in authentication', () => {
  it('requires a session for non-public functions and allows public ones', async () => {
    const handle = setup();
    expect((await call(handle, null, 'query', 'tasks/list', {})).body.error?.code).toBe('SVC_RUNTIME_UNAUTHENTICATED');
    expect((await call(handle, null, 'query', 'tasks/list', {})).status).toBe(401);
    expect((await call(handle, null, 'query', 'notes/count', {})).body.value).toBe(0);
  });

  it('signs in with the password, rejects a wrong one, and exposes the session with its CSRF token', async () => {
    const handle = setup();
    const alice = await signUp(handle, 'alice@example.com');
    expect((await handle(request('/__svc/auth/signup', { body: { email: 'ALICE@example.com', password: 'another password' } }))).status).toBe(409);
    const wrong = await handle(request('/__svc/auth/signin', { body: { email: 'alice@example.com', password: 'wrong password' } }));
    expect(wrong.status).toBe(401);
    const right = await handle(request('/__svc/auth/signin', { body: { email: 'alice@example.com', password: 'correct horse battery' } }));
    expect(right.status).toBe(200);
    const session = await handle(request('/__svc/auth/session', { method: 'GET', headers: { cookie: alice.cookie } }));
    expect(await session.json()).toEqual({ user: { id: alice.userId, email: 'alice@example.com' }, csrfToken: alice.csrf });
    expect(renderCsrfMeta(handle.session(request('/', { method: 'GET', headers: { cookie: alice.cookie } })))).toBe(
      `<meta name="svc-csrf" content="${alice.csrf}">`,
    );
    expect(renderCsrfMeta(null)).toBe('<meta name="svc-csrf" content="">');
  });

  it('rejects mutations without the CSRF token and accepts them with it', async () => {
    const handle = setup();
    const alice = await signUp(handle, 'alice@example.com');
    const missing = await call(handle, alice, 'mutation', 'tasks/add', { text: 'x' }, false);
    expect(missing).toMatchObject({ status: 403, body: { error: { code: 'SVC_RUNTIME_CSRF' } } });
    const wrong = await handle(
      request('/__svc/mutation/tasks/add', {
        body: { text: 'x' },
        headers: { cookie: alice.cookie, 'x-svc-csrf': `${alice.csrf.slice(0, -1)}${alice.csrf.endsWith('A') ? 'B' : 'A'}` },
      }),
    );
    expect(wrong.status).toBe(403);
    expect((await call(handle, alice, 'query', 'tasks/list', {})).body.value).toEqual([]);
    expect((await call(handle, alice, 'mutation', 'tasks/add', { text: 'x' })).status).toBe(200);
  });

  it("scopes owned tables: another user's document reads as missing and cannot be changed", async () => {
    const handle = setup();
    const alice = await signUp(handle, 'alice@example.com');
    const bob = await signUp(handle, 'bob@example.com');
    const id = (await call(handle, alice, 'mutation', 'tasks/add', { text: 'alice only' })).body.value;
    expect((await call(handle, alice, 'query', 'tasks/get', { id })).body.value).toMatchObject({ _ownerId: alice.userId, text: 'alice only' });
    expect((await call(handle, bob, 'query', 'tasks/get', { id })).body.value).toBeNull();
    expect((await call(handle, bob, 'query', 'tasks/list', {})).body.value).toEqual([]);
    expect((await call(handle, bob, 'mutation', 'tasks/toggle', { id })).body.value).toBeNull();
    expect((await call(handle, bob, 'mutation', 'tasks/remove', { id })).body.error?.code).toBe('SVC_RUNTIME_DOCUMENT_NOT_FOUND');
    expect((await call(handle, alice, 'query', 'tasks/get', { id })).body.value).toMatchObject({ done: false, _version: 1 });
  });

  it('partitions the query cache by session', async () => {
    const handle = setup();
    const alice = await signUp(handle, 'alice@example.com');
    const bob = await signUp(handle, 'bob@example.com');
    await call(handle, alice, 'mutation', 'tasks/add', { text: 'a' });
    expect((await call(handle, alice, 'query', 'tasks/list', {})).body.value).toHaveLength(1);
    // Same function and arguments at the same revision: bob must not get alice's cached result.
    expect((await call(handle, bob, 'query', 'tasks/list', {})).body.value).toEqual([]);
  });

  it('signs out (with CSRF) and revalidation of live sessions then fails', async () => {
    const contexts: LiveRequestContext[] = [];
    const handle = setup({ handle: (ctx) => (contexts.push(ctx), new Response('stream')) });
    const alice = await signUp(handle, 'alice@example.com');
    expect((await handle(request('/__svc/live/tasks/list', { method: 'GET' }))).status).toBe(401);
    await handle(request('/__svc/live/tasks/list', { method: 'GET', headers: { cookie: alice.cookie } }));
    const identity = contexts[0]!.identity as Identity;
    expect(identity.userId).toBe(alice.userId);
    expect(contexts[0]!.revalidate()).toEqual(identity);
    expect((await handle(request('/__svc/auth/signout', { headers: { cookie: alice.cookie } }))).status).toBe(403);
    const out = await handle(request('/__svc/auth/signout', { headers: { cookie: alice.cookie, 'x-svc-csrf': alice.csrf } }));
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect(contexts[0]!.revalidate()).toBeNull();
    expect((await call(handle, alice, 'query', 'tasks/list', {})).status).toBe(401);
  });

  it('rejects a cross-site sign-in attempt', async () => {
    const handle = setup();
    const response = await handle(
      request('/__svc/auth/signup', { body: { email: 'x@example.com', password: 'long enough pw' }, headers: { origin: 'https://evil.example' } }),
    );
    expect(response.status).toBe(403);
  });

  it('refuses further sign-ins for an email after 10 failures (429), even with the right password', async () => {
    const handle = setup();
    await signUp(handle, 'carol@example.com');
    const attempt = (password: string) => handle(request('/__svc/auth/signin', { body: { email: 'carol@example.com', password } }));
    for (let i = 0; i < 10; i++) expect((await attempt(`wrong password ${i}`)).status).toBe(401);
    const blocked = await attempt('correct horse battery');
    expect(blocked.status).toBe(429);
    expect(((await blocked.json()) as { error: { code: string } }).error.code).toBe('SVC_RUNTIME_RATE_LIMITED');
  });
});

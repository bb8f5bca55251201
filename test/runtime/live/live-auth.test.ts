// Live queries with authentication: per-session partitions, cookies over fetch streaming, and a
// signed-out session's stream closing on the next push.
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type SvcClient } from '../../../src/runtime/client/index.js';
import { createFetchHandler } from '../../../src/runtime/http/create-fetch-handler.js';
import { openDatabase } from '../../../src/runtime/index.js';
import { createLiveRoute, createNodeLiveServer, type LiveRouteHandle } from '../../../src/runtime/live/index.js';
import { authedBackend } from './support/tasks-backend.js';
import { until } from './support/until.js';

let dir = '';
let server: Server | null = null;
let live: LiveRouteHandle | null = null;
let db: ReturnType<typeof openDatabase> | null = null;
const clients: SvcClient[] = [];

afterEach(async () => {
  clients.splice(0).forEach((c) => c.close());
  live?.close();
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(null)));
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<{ url: string; handler: ReturnType<typeof createFetchHandler> }> {
  dir = mkdtempSync(join(tmpdir(), 'svc-live-auth-'));
  db = openDatabase(authedBackend.schema, { path: join(dir, 'app.db') });
  live = createLiveRoute({ heartbeatMs: 60_000 });
  const handler = createFetchHandler(authedBackend, db, { live, onError: () => undefined });
  server = createNodeLiveServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, handler };
}

/** Sign up over HTTP; returns a client whose fetch carries the session cookie, plus the cookie and token. */
async function signUp(url: string, email: string): Promise<{ client: SvcClient; cookie: string; csrf: string }> {
  const res = await fetch(`${url}/__svc/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email, password: 'long enough password' }),
  });
  expect(res.status).toBe(201);
  const cookie = res.headers.getSetCookie()[0]!.split(';')[0]!;
  const { csrfToken } = (await res.json()) as { csrfToken: string };
  const client = createClient({
    url,
    csrfToken,
    reconnect: { initialMs: 20, maxMs: 50 },
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), cookie, origin: url } }),
  });
  clients.push(client);
  return { client, cookie, csrf: csrfToken };
}

describe('live queries with authentication', () => {
  it('partitions shared executions by session and closes a signed-out session’s stream on the next push', async () => {
    const { url, handler } = await start();
    const alice = await signUp(url, 'alice@example.test');
    const bob = await signUp(url, 'bob@example.test');
    const a = alice.client.live<{ text: string }[]>('tasks/list', { list: 'x' });
    const b = bob.client.live<{ text: string }[]>('tasks/list', { list: 'x' });
    await until(a, (s) => !s.loading);
    await until(b, (s) => !s.loading);
    const hub = live!.hubFor(handler.engine);
    expect(hub.stats()).toMatchObject({ connections: 2, queries: 2 }); // one execution per session

    await alice.client.mutation('tasks/add', { text: 'hi', list: 'x' });
    await until(b, (s) => s.data?.length === 1);
    await until(a, (s) => s.data?.length === 1);

    const out = await fetch(`${url}/__svc/auth/signout`, { method: 'POST', headers: { cookie: alice.cookie, 'x-svc-csrf': alice.csrf, origin: url } });
    expect(out.status).toBe(200);
    await bob.client.mutation('tasks/add', { text: 'again', list: 'x' });
    const revoked = await until(a, (s) => s.error !== null);
    expect(revoked.error!.code).toBe('SVC_LIVE_SESSION_REVOKED');
    expect(revoked.data).toHaveLength(1); // never saw the post-signout snapshot
    expect((await until(b, (s) => s.data?.length === 2)).error).toBeNull();
    await expect.poll(() => hub.stats().connections).toBe(1);
    await new Promise((r) => setTimeout(r, 150));
    expect(hub.stats().connections).toBe(1); // the revoked client did not reconnect
  });

  it('refuses a live query without a session (401) and mutations without the CSRF token (403)', async () => {
    const { url } = await start();
    const anonymous = createClient({ url, reconnect: { initialMs: 20, maxMs: 50 } });
    clients.push(anonymous);
    const sub = anonymous.live('tasks/list', { list: 'x' });
    expect((await until(sub, (s) => s.error !== null)).error).toMatchObject({ code: 'SVC_RUNTIME_UNAUTHENTICATED', status: 401 });
    const { cookie } = await signUp(url, 'carol@example.test');
    const noToken = createClient({
      url,
      fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), cookie, origin: url } }),
    });
    clients.push(noToken);
    await expect(noToken.mutation('tasks/add', { text: 'x', list: 'x' })).rejects.toMatchObject({ code: 'SVC_RUNTIME_CSRF', status: 403 });
  });
});

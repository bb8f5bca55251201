// Live queries on the real runtime: file database, Fetch handler, live route, node adapter, real HTTP.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, type SvcClient } from '../../../src/runtime/client/index.js';
import { sendFetchResponse, toFetchRequest } from '../../../src/runtime/index.js';
import { startTasksServer, type TasksServer } from './support/start-tasks-server.js';
import { isSnapshot, readSse } from './sse-reader.js';
import { until } from './support/until.js';

const run = promisify(execFile);
let dir: string;
let app: TasksServer | null = null;
let client: SvcClient | null = null;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-live-'));
});
afterEach(async () => {
  client?.close();
  client = null;
  await app?.close();
  app = null;
  rmSync(dir, { recursive: true, force: true });
});

describe('live queries on the runtime', () => {
  it('pushes a new snapshot after a mutation; the version is the committed revision', async () => {
    app = await startTasksServer(join(dir, 'app.db'));
    client = createClient({ url: app.url });
    const sub = client.live<{ text: string }[]>('tasks/list', { list: 'a' });
    expect(await until(sub, (s) => !s.loading)).toEqual({ data: [], loading: false, error: null, version: 0 });
    const id = await client.mutation<string>('tasks/add', { text: 'one', list: 'a' });
    expect(id).toMatch(/^tasks_/);
    const state = await until(sub, (s) => s.data?.length === 1);
    expect(state.data).toEqual([{ id, text: 'one' }]);
    expect(state.version).toBe(1);
    expect(await client.query('tasks/list', { list: 'a' })).toEqual([{ id, text: 'one' }]);
  });

  it('shares one execution among subscribers of the same function and canonical arguments', async () => {
    app = await startTasksServer(join(dir, 'app.db'));
    client = createClient({ url: app.url });
    const subs = Array.from({ length: 20 }, (_, i) => client!.live('tasks/latest', i % 2 ? { limit: 5 } : { limit: 5.0 }));
    await Promise.all(subs.map((s) => until(s, (st) => !st.loading)));
    const hub = app.live.hubFor(app.handler.engine);
    expect(hub.stats()).toMatchObject({ connections: 20, queries: 1, runs: 1 });
    await client.mutation('tasks/add', { text: 'x', list: 'a' });
    await Promise.all(subs.map((s) => until(s, (st) => st.version === 1)));
    expect(hub.stats().runs).toBe(2);
  });

  it('reruns only queries whose dependencies the commit touched', async () => {
    app = await startTasksServer(join(dir, 'app.db'));
    client = createClient({ url: app.url });
    const one = await client.mutation<string>('tasks/add', { text: 'one', list: 'a' });
    const two = await client.mutation<string>('tasks/add', { text: 'two', list: 'a' });
    const sub = client.live<string>('tasks/get', { id: one });
    expect((await until(sub, (s) => !s.loading)).data).toBe('one');
    const hub = app.live.hubFor(app.handler.engine);
    const runs = hub.stats().runs;
    await client.mutation('tasks/rename', { id: two, text: 'TWO' });
    await new Promise((r) => setTimeout(r, 50));
    expect(hub.stats().runs).toBe(runs); // get(one) does not depend on two
    await client.mutation('tasks/rename', { id: one, text: 'ONE' });
    expect((await until(sub, (s) => s.data === 'ONE')).version).toBe(4);
    expect(hub.stats().runs).toBe(runs + 1);
  });

  it('rejects invalid arguments with an HTTP error instead of a stream', async () => {
    app = await startTasksServer(join(dir, 'app.db'));
    const res = await fetch(`${app.url}/__svc/live/tasks/latest?args=${encodeURIComponent('{"limit":"x"}')}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('SVC_RUNTIME_INVALID_ARGUMENTS');
  });

  it('streams through a plain Fetch Response body too (no node adapter), unbuffered', async () => {
    app = await startTasksServer(join(dir, 'app.db'));
    const res = await app.handler(new Request(`http://127.0.0.1/__svc/live/tasks/latest?args=${encodeURIComponent('{"limit":3}')}`));
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = readSse(res.body!);
    expect(JSON.parse((await events.next(isSnapshot)).data!)).toEqual({ value: [], revision: 0 });
    app.handler.engine.runMutation('tasks/add', { text: 'z', list: 'a' }, null);
    const next = await events.next(isSnapshot);
    expect(next.id).toBe('1');
    expect(JSON.parse(next.data!)).toEqual({ value: ['z'], revision: 1 });
    await events.cancel();
  });

  it('streams through the runtime’s generic node adapter (toFetchRequest/sendFetchResponse) as well', async () => {
    app = await startTasksServer(join(dir, 'app.db'));
    const generic = createServer((req, res) => {
      void Promise.resolve(app!.handler(toFetchRequest(req))).then((response) => sendFetchResponse(res, response));
    });
    await new Promise<void>((r) => generic.listen(0, '127.0.0.1', r));
    try {
      client = createClient({ url: `http://127.0.0.1:${(generic.address() as AddressInfo).port}` });
      const sub = client.live<string[]>('tasks/latest', { limit: 2 });
      await until(sub, (s) => !s.loading);
      await client.mutation('tasks/add', { text: 'via generic adapter', list: 'a' });
      expect((await until(sub, (s) => s.data?.length === 1)).version).toBe(1);
    } finally {
      client?.close();
      generic.closeAllConnections();
      await new Promise((r) => generic.close(r));
    }
  });

  it('enforces the configured connection limit (503) without a fixed cap', async () => {
    app = await startTasksServer(join(dir, 'app.db'), { live: { maxConnections: 3 } });
    client = createClient({ url: app.url });
    const subs = [1, 2, 3].map((limit) => client!.live('tasks/latest', { limit }));
    await Promise.all(subs.map((s) => until(s, (st) => !st.loading)));
    const res = await fetch(`${app.url}/__svc/live/tasks/latest?args=${encodeURIComponent('{"limit":9}')}`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('SVC_LIVE_TOO_MANY_CONNECTIONS');
  });

  it('fault: disconnects a slow SSE consumer while others keep receiving', async () => {
    app = await startTasksServer(join(dir, 'app.db'), { live: { maxQueueBytes: 256 * 1024, maxPayloadBytes: 2 * 1024 * 1024 } });
    client = createClient({ url: app.url });
    const good = client.live<string[]>('tasks/latest', { limit: 1 });
    await until(good, (s) => !s.loading);
    // A consumer that connects and never reads: the kernel buffers fill, then the server's queue bound trips.
    const slow = connect({ port: app.port, host: '127.0.0.1' });
    slow.pause();
    let closed = false;
    slow.on('close', () => (closed = true));
    slow.on('error', () => undefined);
    slow.write(`GET /__svc/live/tasks/latest?args=${encodeURIComponent('{"limit":1}')} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    const hub = app.live.hubFor(app.handler.engine);
    await expect.poll(() => hub.stats().connections).toBe(2);
    const big = 'x'.repeat(150_000);
    for (let i = 0; i < 60 && hub.stats().slowConsumersDropped === 0; i++) {
      await client.mutation('tasks/add', { text: `${i}${big}`, list: 'a' });
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(hub.stats().slowConsumersDropped).toBe(1);
    expect(hub.stats().connections).toBe(1);
    slow.resume(); // reading now drains what the kernel held, then sees the server's close
    await expect.poll(() => closed, { timeout: 5_000 }).toBe(true);
    await client.mutation('tasks/add', { text: 'after', list: 'a' });
    expect((await until(good, (s) => s.data?.[0] === 'after')).error).toBeNull();
    slow.destroy();
  });

  it('fault: a second process writing the same database file reaches live clients', async () => {
    const dbPath = join(dir, 'app.db');
    app = await startTasksServer(dbPath, { pollIntervalMs: 50 });
    client = createClient({ url: app.url });
    const sub = client.live<{ text: string }[]>('tasks/list', { list: 'shared' });
    await until(sub, (s) => !s.loading);
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'support', 'write-task-main.ts'), dbPath, 'from-elsewhere', 'shared'],
      { timeout: 30_000 },
    );
    const { revision } = JSON.parse(stdout) as { revision: number };
    const state = await until(sub, (s) => s.data?.length === 1);
    expect(state.data![0]!.text).toBe('from-elsewhere');
    expect(state.version).toBe(revision);
  });
});

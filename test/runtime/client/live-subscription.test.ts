import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { backoffDelay, createClient, type LiveState, type SvcClient } from '../../../src/runtime/client/index.js';

// A scripted SSE server over real HTTP: each test decides what every connection receives.
type Script = (req: IncomingMessage, res: ServerResponse, n: number) => void;
let server: Server | null = null;
let client: SvcClient | null = null;
const seen: IncomingMessage[] = [];

afterEach(async () => {
  client?.close();
  client = null;
  seen.length = 0;
  if (server) {
    server.closeAllConnections();
    await new Promise((r) => server!.close(r));
    server = null;
  }
});

async function serve(script: Script): Promise<string> {
  server = createServer((req, res) => {
    seen.push(req);
    script(req, res, seen.length);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const sse = (res: ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.flushHeaders();
};
const snap = (value: unknown, revision: number): string => `id: ${revision}\nevent: snapshot\ndata: ${JSON.stringify({ value, revision })}\n\n`;

function until<T>(
  sub: { getState(): LiveState<T>; subscribe(l: (s: LiveState<T>) => void): () => void },
  ok: (s: LiveState<T>) => boolean,
  ms = 5_000,
): Promise<LiveState<T>> {
  return new Promise((resolve, reject) => {
    if (ok(sub.getState())) return resolve(sub.getState());
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timeout; state ${JSON.stringify(sub.getState())}`));
    }, ms);
    const off = sub.subscribe((s) => {
      if (ok(s)) {
        clearTimeout(timer);
        off();
        resolve(s);
      }
    });
  });
}

describe('live subscription (client)', () => {
  it('starts loading, then shows the snapshot with its revision as version', async () => {
    const url = await serve((req, res) => {
      sse(res);
      res.write(snap({ n: 1 }, 7));
    });
    client = createClient({ url });
    const sub = client.live<{ n: number }>('tasks/list', { a: 1 });
    expect(sub.getState()).toEqual({ data: undefined, loading: true, error: null, version: null });
    expect(await until(sub, (s) => !s.loading)).toEqual({ data: { n: 1 }, loading: false, error: null, version: 7 });
    expect(seen[0]!.url).toBe(`/__svc/live/tasks/list?args=${encodeURIComponent('{"a":1}')}`);
    expect(seen[0]!.headers.accept).toBe('text/event-stream');
  });

  it('replaces a server-rendered seed with the authoritative snapshot, ignoring older ones', async () => {
    const url = await serve((req, res) => {
      sse(res);
      res.write(snap('older', 3));
      setTimeout(() => res.write(snap('current', 5)), 30);
    });
    client = createClient({ url });
    const sub = client.live<string>('q', {}, { initial: 'seed', initialVersion: 5 });
    expect(sub.getState()).toEqual({ data: 'seed', loading: false, error: null, version: 5 });
    const states: string[] = [];
    sub.subscribe((s) => states.push(s.data!));
    await until(sub, (s) => s.data === 'current');
    expect(states).toEqual(['current']); // 'older' (revision 3 < 5) was never shown
  });

  it('reconnects after the stream drops and sends Last-Event-ID', async () => {
    const url = await serve((req, res, n) => {
      sse(res);
      if (n === 1) {
        res.write(snap('first', 10));
        setTimeout(() => res.destroy(), 20);
      } else {
        res.write(snap('second', 12));
      }
    });
    client = createClient({ url, reconnect: { initialMs: 10, maxMs: 50 } });
    const sub = client.live<string>('q');
    await until(sub, (s) => s.data === 'second');
    expect(seen).toHaveLength(2);
    expect(seen[0]!.headers['last-event-id']).toBeUndefined();
    expect(seen[1]!.headers['last-event-id']).toBe('10');
    expect(sub.getState().version).toBe(12);
  });

  it('stops on a client error (e.g. unknown function) and reports its code', async () => {
    const url = await serve((req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'SVC_RUNTIME_UNKNOWN_FUNCTION', message: 'no' } }));
    });
    client = createClient({ url, reconnect: { initialMs: 5, maxMs: 5 } });
    const sub = client.live('nope');
    const state = await until(sub, (s) => s.error !== null);
    expect(state.error).toMatchObject({ code: 'SVC_RUNTIME_UNKNOWN_FUNCTION', status: 404 });
    await new Promise((r) => setTimeout(r, 60));
    expect(seen).toHaveLength(1);
  });

  it('retries server errors with backoff', async () => {
    const url = await serve((req, res, n) => {
      if (n < 3) {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'SVC_LIVE_TOO_MANY_CONNECTIONS', message: 'full' } }));
        return;
      }
      sse(res);
      res.write(snap('ok', 1));
    });
    client = createClient({ url, reconnect: { initialMs: 5, maxMs: 20 } });
    const sub = client.live<string>('q');
    expect(await until(sub, (s) => s.data === 'ok')).toMatchObject({ error: null, version: 1 });
    expect(seen).toHaveLength(3);
  });

  it('shows a query error event and clears it with the next snapshot; fatal errors stop the stream', async () => {
    const url = await serve((req, res) => {
      sse(res);
      res.write(snap(1, 1));
      res.write(`event: error\ndata: ${JSON.stringify({ code: 'SVC_RUNTIME_APP_ERROR', message: 'bad', fatal: false })}\n\n`);
      setTimeout(() => res.write(snap(2, 2)), 30);
      setTimeout(() => res.write(`event: error\ndata: ${JSON.stringify({ code: 'SVC_LIVE_PAYLOAD_TOO_LARGE', message: 'big', fatal: true })}\n\n`), 60);
    });
    client = createClient({ url, reconnect: { initialMs: 5, maxMs: 5 } });
    const sub = client.live<number>('q');
    expect((await until(sub, (s) => s.error !== null)).error!.code).toBe('SVC_RUNTIME_APP_ERROR');
    expect(await until(sub, (s) => s.data === 2)).toMatchObject({ error: null, version: 2 });
    expect((await until(sub, (s) => s.error !== null)).error!.code).toBe('SVC_LIVE_PAYLOAD_TOO_LARGE');
    await new Promise((r) => setTimeout(r, 60));
    expect(seen).toHaveLength(1);
  });

  it('reconnects when nothing arrives within the idle timeout (no heartbeats)', async () => {
    const url = await serve((req, res, n) => {
      sse(res);
      res.write(snap(n, n));
    });
    client = createClient({ url, idleTimeoutMs: 300, reconnect: { initialMs: 5, maxMs: 5 } });
    const sub = client.live<number>('q');
    await until(sub, (s) => s.data === 2, 3_000);
    expect(seen[1]!.headers['last-event-id']).toBe('1');
  });
});

describe('backoffDelay', () => {
  it('grows exponentially up to the cap and keeps half of it fixed', () => {
    const p = { initialMs: 100, maxMs: 1000 };
    expect(backoffDelay(p, 0, 0)).toBe(50);
    expect(backoffDelay(p, 0, 0.999)).toBeCloseTo(100, -1);
    expect(backoffDelay(p, 3, 0)).toBe(400);
    expect(backoffDelay(p, 10, 1)).toBe(1000);
  });
});

describe('query and mutation (client)', () => {
  it('posts JSON arguments, sends the CSRF token on mutations and decodes values and errors', async () => {
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.url === '/__svc/mutation/tasks/fail') {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { code: 'SVC_RUNTIME_APP_ERROR', message: 'nope', data: { x: 1 } } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ value: { url: req.url, body: JSON.parse(body) as unknown, csrf: req.headers['x-svc-csrf'] ?? null }, revision: 1 }));
      });
    });
    client = createClient({ url, csrfToken: 'tok' });
    expect(await client.query('tasks/list', { a: 1 })).toEqual({ url: '/__svc/query/tasks/list', body: { a: 1 }, csrf: null });
    expect(await client.mutation('tasks/add', { t: 'x' })).toEqual({ url: '/__svc/mutation/tasks/add', body: { t: 'x' }, csrf: 'tok' });
    await expect(client.mutation('tasks/fail')).rejects.toMatchObject({ code: 'SVC_RUNTIME_APP_ERROR', status: 400, data: { x: 1 } });
  });
});

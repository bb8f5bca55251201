// Integration: the control plane listens on port 0 and proxies app hosts to real upstream processes.
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pool } from 'undici';
import type { RequestRecord } from '../../src/ingress/index.js';
import { isLiveQueryStream } from '../../src/ingress/proxy-policy.js';
import { startListeningPlane, startUpstream, type ListeningPlane, type UpstreamProcess } from './support.js';

let plane: ListeningPlane;
let a: UpstreamProcess;
let client: Pool;
const records: RequestRecord[] = [];
const appHost = () => `app.localhost:${plane.port}`;

beforeAll(async () => {
  [plane, a] = await Promise.all([startListeningPlane(), startUpstream('A')]);
  plane.plane.ingress.routes.setProject({ id: 'prj_app', slug: 'app' }, { host: '127.0.0.1', port: a.port }, 'rel_a');
  plane.plane.ingress.onRequestComplete((r) => records.push({ ...r }));
  client = new Pool(plane.url, { connections: 8 });
});

afterAll(async () => {
  await client?.close();
  await plane?.close();
  await a?.stop();
});

async function get(path: string, host = appHost(), method = 'GET', headers: Record<string, string> = {}) {
  const res = await client.request({ path, method: method as 'GET', headers: { host, ...headers } });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body, json: () => JSON.parse(body.toString('utf8')) as Record<string, unknown> };
}

/** Wait until a predicate holds (bounded). */
async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function pattern(offset: number, length: number): Buffer {
  const chunk = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) chunk[i] = (offset + i) % 251;
  return chunk;
}

describe('ingress proxy over a real listener', () => {
  it('routes a project host (case- and port-insensitive) to its active release', async () => {
    for (const host of [appHost(), 'APP.localhost', 'app.localhost.:8080']) {
      const res = await get('/whoami', host);
      expect(res.status).toBe(200);
      expect(res.json().name).toBe('A');
    }
  });

  it('preserves method, path, query and headers and adds forwarding headers (spoofed ones replaced)', async () => {
    const res = await get('/echo?x=1&y=%20', appHost(), 'PATCH', {
      'x-test': 'yes',
      cookie: 'session=abc',
      'x-forwarded-for': '6.6.6.6',
      forwarded: 'for=6.6.6.6',
    });
    expect(res.status).toBe(200);
    const echo = res.json() as { method: string; url: string; headers: Record<string, string> };
    expect(echo.method).toBe('PATCH');
    expect(echo.url).toBe('/echo?x=1&y=%20');
    expect(echo.headers['x-test']).toBe('yes');
    expect(echo.headers.cookie).toBe('session=abc');
    expect(echo.headers.host).toBe(appHost());
    expect(echo.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(echo.headers['x-forwarded-proto']).toBe('http');
    expect(echo.headers['x-forwarded-host']).toBe(appHost());
    expect(echo.headers.forwarded).toBe(`for=127.0.0.1;host="${appHost()}";proto=http`);
  });

  it('drops headers the client names in Connection (hop-by-hop)', async () => {
    // undici consumes Connection itself, so send this one with node:http.
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: plane.port,
          path: '/echo',
          headers: { host: appHost(), connection: 'keep-alive, x-drop-me', 'x-drop-me': 'secret', 'x-keep': '1' },
        },
        (res) => {
          let text = '';
          res
            .setEncoding('utf8')
            .on('data', (c: string) => (text += c))
            .on('end', () => resolve(text));
        },
      );
      req.on('error', reject).end();
    });
    const echo = JSON.parse(body) as { headers: Record<string, string> };
    expect(echo.headers['x-keep']).toBe('1');
    expect(echo.headers['x-drop-me']).toBeUndefined();
  });

  it('passes response headers through (multiple set-cookie) without hop-by-hop ones', async () => {
    const res = await get('/headers-out');
    expect(res.status).toBe(200);
    expect(res.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(res.headers['x-custom']).toBe('kept');
    expect(res.headers['x-hop']).toBeUndefined();
  });

  it('streams a large upload and a large download intact', async () => {
    const size = 24 * 1024 * 1024;
    const expected = createHash('sha256');
    async function* body() {
      for (let offset = 0; offset < size; offset += 256 * 1024) {
        const chunk = pattern(offset, Math.min(256 * 1024, size - offset));
        expected.update(chunk);
        yield chunk;
      }
    }
    const up = await client.request({
      path: '/upload',
      method: 'POST',
      headers: { host: appHost(), 'content-type': 'application/octet-stream' },
      body: Readable.from(body()),
    });
    const result = (await up.body.json()) as { bytes: number; sha256: string };
    expect(up.statusCode).toBe(200);
    expect(result.bytes).toBe(size);
    expect(result.sha256).toBe(expected.digest('hex'));

    const down = await client.request({ path: `/download?bytes=${size}`, method: 'GET', headers: { host: appHost() } });
    expect(down.statusCode).toBe(200);
    const got = createHash('sha256');
    let received = 0;
    for await (const chunk of down.body) {
      got.update(chunk as Buffer);
      received += (chunk as Buffer).length;
    }
    const want = createHash('sha256');
    for (let offset = 0; offset < size; offset += 64 * 1024) want.update(pattern(offset, Math.min(64 * 1024, size - offset)));
    expect(received).toBe(size);
    expect(got.digest('hex')).toBe(want.digest('hex'));
    await until(() => records.some((r) => r.method === 'GET' && r.bytes === size));
  });

  it('passes server-sent events unbuffered: the first event arrives while the stream is still open', async () => {
    const res = await client.request({ path: '/sse?id=s1', method: 'GET', headers: { host: appHost(), accept: 'text/event-stream' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    const iterator = res.body[Symbol.asyncIterator]();
    const first = await Promise.race([
      iterator.next(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('first event did not arrive')), 5_000)),
    ]);
    expect(String(first.value)).toContain('data: first A');
    // Only now does the upstream end the stream.
    const finish = await get('/sse-finish?id=s1');
    expect(finish.json().finished).toBe(true);
    let rest = '';
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest += String(next.value);
    expect(rest).toContain('data: last');
  });

  it('counts an open live-query stream of its project until it ends; other streams only as in flight', async () => {
    const counts = () => plane.plane.ingress.routes.list().find((r) => r.projectId === 'prj_app')!;
    const open = async (path: string) => {
      const res = await client.request({ path, method: 'GET', headers: { host: appHost(), accept: 'text/event-stream' } });
      const iterator = res.body[Symbol.asyncIterator]();
      expect(String((await iterator.next()).value)).toContain('data: first A');
      return async () => {
        for (let next = await iterator.next(); !next.done; next = await iterator.next());
      };
    };
    const drainLive = await open('/__svc/live/tasks/list?id=live1&args=%7B%7D');
    const drainPlain = await open('/sse?id=plain1');
    expect(counts()).toMatchObject({ inFlight: 2, liveStreams: 1 });
    expect((await get('/sse-finish?id=live1')).json().finished).toBe(true);
    await drainLive();
    await until(() => counts().liveStreams === 0);
    expect(counts().inFlight).toBe(1);
    expect((await get('/sse-finish?id=plain1')).json().finished).toBe(true);
    await drainPlain();
    await until(() => counts().inFlight === 0);
    expect(isLiveQueryStream({ method: 'POST', url: '/__svc/live/tasks/list' })).toBe(false);
    expect(isLiveQueryStream({ method: 'GET', url: '/__svc/livez' })).toBe(false);
    expect(isLiveQueryStream({ method: 'GET', url: '/app/__svc/live/x' })).toBe(false);
  });

  it('answers reserved paths from the control plane on an app host', async () => {
    const livez = await get('/livez');
    expect(livez.json()).toEqual({ status: 'ok' });
    for (const path of ['/readyz', '/healthz', '/_svc/readyz']) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.json().status).toBe('ok');
      expect(res.json().from).toBeUndefined();
    }
    // Not reserved: the app's own paths, including look-alikes.
    expect((await get('/reserved-check')).json().from).toBe('upstream');
    expect((await get('/livez/')).json().name).toBe('A');
  });

  it('leaves other hosts to the control plane', async () => {
    const own = await get('/livez', `127.0.0.1:${plane.port}`);
    expect(own.json()).toEqual({ status: 'ok' });
    // An API path: the console's SPA fallback answers other unknown GET paths with its page.
    const unknown = await get('/api/whoami', `nope.localhost:${plane.port}`);
    expect(unknown.status).toBe(404);
    expect((unknown.json().error as { code: string }).code).toBe('SVC_NOT_FOUND');
  });

  it('returns 503 SVC_INGRESS_NO_ACTIVE_RELEASE and 502 SVC_INGRESS_UPSTREAM_UNAVAILABLE', async () => {
    const routes = plane.plane.ingress.routes;
    routes.setProject({ id: 'prj_idle', slug: 'idle' }, null, null);
    const idle = await get('/', `idle.localhost:${plane.port}`);
    expect(idle.status).toBe(503);
    expect((idle.json().error as { code: string }).code).toBe('SVC_INGRESS_NO_ACTIVE_RELEASE');

    routes.setProject({ id: 'prj_dead', slug: 'dead' }, { host: '127.0.0.1', port: await closedPort() }, 'rel_dead');
    const dead = await get('/', `dead.localhost:${plane.port}`);
    expect(dead.status).toBe(502);
    expect((dead.json().error as { code: string }).code).toBe('SVC_INGRESS_UPSTREAM_UNAVAILABLE');
    await until(() => records.some((r) => r.projectId === 'prj_dead' && r.status === 502 && r.streamError));
    // The switch API refuses an upstream that does not accept connections and keeps the route.
    await expect(routes.switchUpstream('prj_app', { host: '127.0.0.1', port: await closedPort() }, 'rel_x')).rejects.toMatchObject({
      code: 'SVC_INGRESS_UPSTREAM_UNAVAILABLE',
    });
    expect((await get('/whoami')).json().name).toBe('A');
  });

  it('retries a safe request once when a reused keep-alive connection is reset, but never a POST', async () => {
    // A raw HTTP server: each connection answers its first GET and resets on its second request
    // (the keep-alive race); the first POST ever is reset too (a retry would then succeed).
    let posts = 0;
    const flaky = createServer((socket) => {
      let count = 0;
      socket.on('data', (data) => {
        const isPost = String(data).startsWith('POST');
        if (isPost ? ++posts === 1 : ++count !== 1) socket.destroy();
        else socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
      });
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    try {
      const port = (flaky.address() as { port: number }).port;
      plane.plane.ingress.routes.setProject({ id: 'prj_flaky', slug: 'flaky' }, { host: '127.0.0.1', port }, 'rel_f');
      const host = `flaky.localhost:${plane.port}`;
      expect((await get('/', host)).status).toBe(200);
      const second = await get('/', host);
      expect(second.status).toBe(200);
      expect(second.body.toString()).toBe('ok');
      const post = await get('/', host, 'POST');
      expect(post.status).toBe(502);
      expect(posts).toBe(1);
    } finally {
      plane.plane.ingress.routes.removeProject('prj_flaky');
      flaky.close();
    }
  });

  it('aborts the upstream request when the client goes away and records it as aborted', async () => {
    const before = (await get('/stats')).json().closedEarly as number;
    const res = await client.request({ path: '/trickle', method: 'GET', headers: { host: appHost() } });
    const iterator = res.body[Symbol.asyncIterator]();
    await iterator.next();
    res.body.destroy();
    await until(() => records.some((r) => r.method === 'GET' && r.aborted && r.bytes > 0 && r.status === 200));
    let after = before;
    const deadline = Date.now() + 5_000;
    while (after === before && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      after = (await get('/stats')).json().closedEarly as number;
    }
    expect(after).toBeGreaterThan(before);
  });

  it('counts zero bytes for HEAD and records status and release', async () => {
    records.length = 0;
    const res = await get('/whoami', appHost(), 'HEAD');
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(0);
    await until(() => records.length > 0);
    expect(records[0]).toMatchObject({ projectId: 'prj_app', releaseId: 'rel_a', method: 'HEAD', status: 200, bytes: 0, aborted: false, streamError: false });
  });

  it('keeps inject() working for control-plane routes', async () => {
    const res = await plane.plane.app.inject({ method: 'GET', url: '/livez', headers: { host: appHost() } });
    expect(res.json()).toEqual({ status: 'ok' });
    expect((await plane.plane.app.inject({ method: 'GET', url: '/api/openapi.json' })).statusCode).toBe(200);
  });
});

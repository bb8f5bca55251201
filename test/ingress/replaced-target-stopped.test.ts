// A replaced target whose drain ran out is stopped while requests still wait in its connection pool
// (a backlog after a hold, a slow app). Those requests never reached an app that will answer them:
// the proxy sends them on to whatever serves the project now (a new target, or its hold), instead of
// answering 502. Real HTTP on port 0 throughout; one upstream connection per target so requests queue.
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { IngressProxy } from '../../src/ingress/proxy-request.js';
import { RouteTable } from '../../src/ingress/route-table.js';

interface Upstream {
  port: number;
  /** Requests this upstream has received (path by path). */
  seen: string[];
  /** Stop at once: close the listener and cut every connection (a stopped release). */
  kill(): Promise<void>;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** An upstream app; A holds /slow until released, B (the replacement) answers everything at once. */
async function upstream(name: 'A' | 'B'): Promise<Upstream> {
  const seen: string[] = [];
  const held: ServerResponse[] = [];
  const sockets = new Set<Socket>();
  const answer = (res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ name }));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => (req.url === '/slow' && name === 'A' ? held.push(res) : answer(res)));
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let killed = false;
  const kill = async (): Promise<void> => {
    if (killed) return;
    killed = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  closers.push(kill);
  return { port: (server.address() as AddressInfo).port, seen, kill };
}

async function ingress(): Promise<{ routes: RouteTable; url: string; port: number }> {
  const routes = new RouteTable();
  const proxy = new IngressProxy({ routes, trustProxy: false, observers: [], connectionsPerUpstream: 1 });
  const server: Server = createServer((req, res) => {
    const entry = routes.match(req.headers.host ?? '');
    if (entry === null) {
      res.writeHead(404).end();
      return;
    }
    proxy.forward(req, res, entry);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await proxy.close();
  });
  const port = (server.address() as AddressInfo).port;
  return { routes, url: `http://127.0.0.1:${port}`, port };
}

function ask(url: string, host: string, path: string, method = 'GET', body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host };
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const req = httpRequest(`${url}${path}`, { method, agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const project = { id: 'prj_backlog', slug: 'backlog' };

it('sends requests queued for a stopped, replaced target to the target that replaced it', async () => {
  const [a, b, { routes, url, port }] = await Promise.all([upstream('A'), upstream('B'), ingress()]);
  const host = `backlog.localhost:${port}`;
  routes.setProject(project, { host: '127.0.0.1', port: a.port }, 'rel_a');
  // The one connection to A is busy with a slow request; the rest queue behind it in A's pool.
  const slow = ask(url, host, '/slow');
  await until(() => a.seen.length === 1);
  const queued = [...Array.from({ length: 8 }, (_, i) => ask(url, host, `/q${i}`)), ask(url, host, '/post-no-body', 'POST')];
  await new Promise((r) => setTimeout(r, 100));
  expect(a.seen).toEqual(['GET /slow']);

  const previous = await routes.switchUpstream(project.id, { host: '127.0.0.1', port: b.port }, 'rel_b');
  expect(await routes.drain(previous, 100)).toBe(false); // the drain runs out with requests still queued
  await a.kill();

  const answers = await Promise.all([slow, ...queued]);
  expect(answers.map((x) => `${x.status} ${x.text}`)).toEqual(Array.from({ length: 10 }, () => '200 {"name":"B"}'));
  expect(b.seen.sort()).toEqual(['GET /slow', ...Array.from({ length: 8 }, (_, i) => `GET /q${i}`), 'POST /post-no-body'].sort());
});

it('parks them in the hold that replaced the target and forwards them to the next target', async () => {
  const [a, b, { routes, url, port }] = await Promise.all([upstream('A'), upstream('B'), ingress()]);
  const host = `backlog.localhost:${port}`;
  routes.setProject(project, { host: '127.0.0.1', port: a.port }, 'rel_a');
  const slow = ask(url, host, '/slow');
  await until(() => a.seen.length === 1);
  const queued = Array.from({ length: 5 }, (_, i) => ask(url, host, `/q${i}`));
  await new Promise((r) => setTimeout(r, 100));

  // A restore: the project is held (no target) while its data is put back, and the old app stops.
  await routes.hold(project.id, 10_000);
  await a.kill();
  await new Promise((r) => setTimeout(r, 200));
  expect(b.seen).toEqual([]);
  await routes.switchUpstream(project.id, { host: '127.0.0.1', port: b.port }, 'rel_b');

  const answers = await Promise.all([slow, ...queued]);
  expect(answers.map((x) => `${x.status} ${x.text}`)).toEqual(Array.from({ length: 6 }, () => '200 {"name":"B"}'));
});

it('answers 502 for what cannot be sent again: a request with a body, and a target that is still routed', async () => {
  const [a, b, { routes, url, port }] = await Promise.all([upstream('A'), upstream('B'), ingress()]);
  const host = `backlog.localhost:${port}`;
  routes.setProject(project, { host: '127.0.0.1', port: a.port }, 'rel_a');
  const slow = ask(url, host, '/slow');
  await until(() => a.seen.length === 1);
  const withBody = ask(url, host, '/upload', 'POST', 'payload');
  await new Promise((r) => setTimeout(r, 100));
  await routes.switchUpstream(project.id, { host: '127.0.0.1', port: b.port }, 'rel_b');
  await a.kill();
  const bodyAnswer = await withBody;
  expect(bodyAnswer.status).toBe(502);
  expect(JSON.parse(bodyAnswer.text)).toMatchObject({ error: { code: 'SVC_INGRESS_UPSTREAM_UNAVAILABLE' } });
  expect((await slow).status).toBe(200); // a body-less GET cut mid-way is sent on
  expect(b.seen).not.toContain('POST /upload');

  // B crashes while it is the routed target: nothing to send the request on to, so 502 (no loop).
  await b.kill();
  const crashed = await ask(url, host, '/after-crash');
  expect(crashed.status).toBe(502);
});

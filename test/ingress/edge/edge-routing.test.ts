// The ingress process routing apps itself: a real svc-ingress child process follows a control-plane
// RouteTable (followEdgeRoutes, the same class the release pipeline switches, holds and drains) and
// proxies app hosts straight to real HTTP servers on port 0, with no control plane on control.sock.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { routeTableCanaryRouting } from '../../../src/canary/canary-routing.js';
import { createLogger } from '../../../src/core/logger.js';
import { askEdge } from '../../../src/ingress/edge/edge-control.js';
import { edgePaths } from '../../../src/ingress/edge/edge-paths.js';
import { followEdgeRoutes, type EdgeRoutes } from '../../../src/ingress/edge/follow-edge-routes.js';
import { RouteTable, type RequestRecord } from '../../../src/ingress/index.js';
import { spawnEdgeIngress } from './spawn-edge-ingress.js';

let dir: string;
let child: ChildProcess;
let port: number;
const servers: Server[] = [];
const logger = createLogger({ level: 'silent' });
const settings = { baseDomain: 'localhost', platformHosts: [], trustProxy: false };

async function startIngress(): Promise<void> {
  ({ child, port } = await spawnEdgeIngress({ dir, holdMs: 3000, listen: `127.0.0.1:${port ?? 0}` }));
}

async function stopIngress(signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-edge-routes-'));
  await startIngress();
}, 30_000);

afterAll(async () => {
  await stopIngress('SIGTERM');
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await rm(dir, { recursive: true, force: true });
});

/** When each app last finished a response. */
const finishedAt = new Map<string, number>();

/** An app: answers its name, the headers it saw, and waits `?delay=ms` first. */
async function app(name: string): Promise<{ host: string; port: number }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    res.once('finish', () => finishedAt.set(name, performance.now()));
    const delay = Number(new URL(req.url!, 'http://x').searchParams.get('delay') ?? 0);
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () =>
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name, body, headers: req.headers })), delay),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { host: '127.0.0.1', port: (server.address() as AddressInfo).port };
}

function send(
  host: string,
  path = '/',
  options: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; json: { name?: string; body?: string; headers?: Record<string, string>; error?: { code: string } }; ms: number }> {
  const began = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { host, ...options.headers }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : {}, ms: performance.now() - began }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

let follower: EdgeRoutes | null = null;
afterEach(() => {
  follower?.close();
  follower = null;
});

async function follow(routes: RouteTable, records: RequestRecord[]): Promise<EdgeRoutes> {
  follower = followEdgeRoutes({ socketPath: edgePaths(dir).ingressSocket, ingress: { routes, report: (r) => records.push(r) }, settings, logger });
  expect(await follower.attached(5_000)).toBe(true);
  return follower;
}

const project = (n: number) => ({ id: `p${n}`, slug: `app${n}` });
const waitFor = async (check: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(check()).toBe(true);
};

describe('svc-ingress routing apps itself', () => {
  it('proxies app hosts straight to the release (credentials stripped, X-Forwarded-For set) and reports records to the control plane', async () => {
    const routes = new RouteTable();
    const records: RequestRecord[] = [];
    routes.setProject(project(1), await app('blue'), 'rel-blue');
    await follow(routes, records);
    const answer = await send('app1.localhost:80', '/x', {
      method: 'POST',
      body: 'hello',
      headers: { authorization: 'Bearer svc_secret', cookie: 'svc_console=s; mine=1' },
    });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      name: 'blue',
      body: 'hello',
      headers: { 'x-forwarded-for': '127.0.0.1', 'x-forwarded-host': 'app1.localhost:80', cookie: 'mine=1' },
    });
    expect(answer.json.headers!.authorization).toBeUndefined();
    await waitFor(() => records.length === 1);
    expect(records[0]).toMatchObject({ projectId: 'p1', releaseId: 'rel-blue', method: 'POST', status: 200, aborted: false });
    expect(records[0]!.endedAt).toBeGreaterThan(Date.now() - 5_000);
    expect(records[0]!.platform).toBe(false);
    // A project without a release: svc's own 503 reaches the control plane marked as such (not the app's error).
    routes.setProject(project(9), null, null);
    await waitFor(() => routes.get('p9') !== undefined);
    expect((await send('app9.localhost:80')).status).toBe(503);
    await waitFor(() => records.length === 2);
    expect(records[1]).toMatchObject({ projectId: 'p9', releaseId: null, status: 503, platform: true });
    // Reserved paths and the platform's own hosts still go to the control plane (none listens: held, then 503).
    expect((await send('app1.localhost', '/healthz')).json.error?.code).toBe('SVC_CONTROL_PLANE_UNAVAILABLE');
  }, 20_000);

  it('switches, drains the old target in the ingress (in-flight there), holds a project and splits canaries', async () => {
    const routes = new RouteTable();
    routes.setProject(project(2), await app('old'), 'rel-blue');
    await follow(routes, []);
    const slow = send('app2.localhost', '/?delay=600');
    await new Promise((resolve) => setTimeout(resolve, 150));
    const previous = await routes.switchUpstream('p2', await app('green'), 'rel-green');
    expect(finishedAt.has('old')).toBe(false);
    const drained = await routes.drain(previous, 5_000);
    // It waited for the request the ingress was proxying to the old target.
    expect({ drained, oldFinished: finishedAt.has('old') }).toEqual({ drained: true, oldFinished: true });
    expect((await slow).json.name).toBe('old');
    expect((await send('app2.localhost')).json.name).toBe('green');
    const live = await askEdge(edgePaths(dir).ingressSocket, { op: 'routes' });
    expect(live?.ok && live.routes?.find((r) => r.projectId === 'p2')).toMatchObject({ releaseId: 'rel-green', inFlight: 0 });

    // A migration window: held requests wait unread and go to the next target.
    const before = await routes.hold('p2', 5_000);
    await routes.drain(before, 1_000);
    const held = send('app2.localhost', '/', { method: 'POST', body: 'kept' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await routes.switchUpstream('p2', await app('purple'), 'rel-purple');
    const answer = await held;
    expect(answer.json).toMatchObject({ name: 'purple', body: 'kept' });
    expect(answer.ms).toBeGreaterThan(250);

    // Canary split through the canary feature's routing (direct entry assignments).
    const canary = routeTableCanaryRouting(routes);
    canary.split('p2', { ...(await app('candidate')), releaseId: 'rel-candidate' }, 50);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const names: string[] = [];
    for (let i = 0; i < 10; i++) names.push((await send('app2.localhost')).json.name!);
    expect(names.filter((n) => n === 'candidate')).toHaveLength(5);
    await canary.clear('p2', 1_000);
    expect((await send('app2.localhost')).json.name).toBe('purple');
  }, 30_000);

  it('keeps routing with no control plane attached, buffers records and delivers them on the next attach; a restarted ingress routes from its saved table', async () => {
    const routes = new RouteTable();
    const first: RequestRecord[] = [];
    routes.setProject(project(3), await app('steady'), 'rel-steady');
    (await follow(routes, first)).close();
    follower = null;
    for (let i = 0; i < 3; i++) expect((await send('app3.localhost')).json.name).toBe('steady');
    const status = await askEdge(edgePaths(dir).ingressSocket, { op: 'status' });
    expect(status?.ok && status.status.routing).toMatchObject({ attached: false, recordsBuffered: 3 });
    const later: RequestRecord[] = [];
    await follow(routes, later);
    await waitFor(() => later.filter((r) => r.projectId === 'p3').length === 3);
    expect(first.filter((r) => r.projectId === 'p3')).toHaveLength(0);

    follower!.close();
    follower = null;
    await stopIngress('SIGKILL');
    await startIngress();
    expect((await send('app3.localhost')).json.name).toBe('steady');

    // A control plane that just started has not routed its re-adopted apps yet: its snapshot does
    // not take their routes away; its first route for them does replace them.
    const restarted = new RouteTable();
    await follow(restarted, []);
    expect((await send('app3.localhost')).json.name).toBe('steady');
    restarted.setProject(project(3), await app('readopted'), 'rel-steady');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await send('app3.localhost')).json.name).toBe('readopted');
  }, 30_000);

  it('retries a body-less GET once when the control plane died before answering; never a POST', async () => {
    let deliveries = 0;
    const controlSocket = edgePaths(dir).controlSocket;
    const server = createServer((req, res) => {
      deliveries++;
      if (deliveries === 1 || req.method === 'POST') req.socket.destroy();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"control"}');
    });
    await new Promise<void>((resolve) => server.listen(controlSocket, resolve));
    try {
      expect(await send('localhost', '/api/x')).toMatchObject({ status: 200, json: { name: 'control' } });
      expect(deliveries).toBe(2);
      expect((await send('localhost', '/api/x', { method: 'POST', body: '{}' })).status).toBe(502);
      expect(deliveries).toBe(3);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 20_000);
});

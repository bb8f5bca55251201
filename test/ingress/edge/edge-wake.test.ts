// Asleep routes in the ingress process: a real svc-ingress child follows a control-plane RouteTable
// (followEdgeRoutes); requests for an asleep route wait there, the ingress sends `wake` over the route
// session, the control plane's wake listeners hear it once, and the requests are served by the app
// the control plane switches in — also when the wake had to wait for the control plane to attach.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
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

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-edge-wake-'));
  ({ child, port } = await spawnEdgeIngress({ dir, holdMs: 3000 }));
}, 30_000);

afterAll(async () => {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await rm(dir, { recursive: true, force: true });
});

let follower: EdgeRoutes | null = null;
afterEach(() => {
  follower?.close();
  follower = null;
});

/** An app that answers its name and the body it got. */
async function app(name: string): Promise<{ host: string; port: number }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name, body })));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { host: '127.0.0.1', port: (server.address() as AddressInfo).port };
}

function send(host: string, body?: string): Promise<{ status: number; json: { name?: string; body?: string; error?: { code: string } }; ms: number }> {
  const began = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', method: body === undefined ? 'GET' : 'POST', headers: { host }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : {}, ms: performance.now() - began }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function follow(routes: RouteTable, records: RequestRecord[] = []): Promise<EdgeRoutes> {
  follower = followEdgeRoutes({ socketPath: edgePaths(dir).ingressSocket, ingress: { routes, report: (r) => records.push(r) }, settings, logger });
  expect(await follower.attached(5_000)).toBe(true);
  return follower;
}

const waitFor = async (check: () => boolean | Promise<boolean>, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!(await check()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await check()).toBe(true);
};

const edgeKnows = async (projectId: string): Promise<boolean> => {
  const reply = await askEdge(edgePaths(dir).ingressSocket, { op: 'routes' });
  return reply?.ok === true && (reply.routes ?? []).some((route) => route.projectId === projectId);
};

it('holds requests for an asleep route, sends one wake to the control plane and serves them once it switches the route', async () => {
  const routes = new RouteTable({ wakeHoldMs: 10_000 });
  const wakes: string[] = [];
  routes.onWake((projectId) => wakes.push(projectId));
  routes.setProject({ id: 'p1', slug: 'preview1' }, await app('sleeper'), 'rel-sleeper');
  const records: RequestRecord[] = [];
  await follow(routes, records);
  await waitFor(() => edgeKnows('p1'));
  expect((await send('preview1.localhost')).json.name).toBe('sleeper');
  // Put to sleep as the release pipeline stops an app: asleep, then out of rotation under a hold.
  routes.setAsleep('p1', true);
  await routes.drain(await routes.hold('p1', 30_000), 1_000);

  let settled = 0;
  const burst = Array.from({ length: 8 }, (_, i) => send('preview1.localhost', i === 0 ? 'kept body' : undefined).finally(() => settled++));
  await waitFor(() => wakes.length === 1);
  const woken = await app('woken');
  await new Promise((resolve) => setTimeout(resolve, 300));
  // Held on both sides: in the ingress (requests) and in the control plane's table (the bound it sent back).
  expect({ wakes, settled, controlPlaneHold: routes.get('p1')!.hold?.wake }).toEqual({ wakes: ['p1'], settled: 0, controlPlaneHold: true });

  await routes.switchUpstream('p1', woken, 'rel-woken');
  const answers = await Promise.all(burst);
  expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
  expect(answers.every((a) => a.json.name === 'woken')).toBe(true);
  expect(answers[0]!.json.body).toBe('kept body');
  expect(Math.min(...answers.map((a) => a.ms))).toBeGreaterThan(250);
  expect(wakes).toEqual(['p1']);
  // The ingress's records of the woken requests reach the control plane's observers with the project.
  const woke = () => records.filter((r) => r.releaseId === 'rel-woken');
  await waitFor(() => woke().length === 8);
  expect(woke().every((r) => r.projectId === 'p1' && r.status === 200 && r.endedAt !== undefined)).toBe(true);
  expect(records.filter((r) => r.platform === true)).toEqual([]);
}, 30_000);

it('asks the control plane to wake a route its requests wait on when the control plane attaches', async () => {
  const routes = new RouteTable({ wakeHoldMs: 10_000 });
  const wakes: string[] = [];
  routes.onWake((projectId) => wakes.push(projectId));
  routes.setProject({ id: 'p2', slug: 'preview2' }, null, null);
  routes.setAsleep('p2', true);
  await follow(routes);
  await waitFor(() => edgeKnows('p2'));
  follower!.close();
  follower = null;
  await waitFor(async () => {
    const status = await askEdge(edgePaths(dir).ingressSocket, { op: 'status' });
    return status?.ok === true && !status.status.routing.attached;
  });

  let settled = false;
  const held = send('preview2.localhost').finally(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect({ wakes, settled }).toEqual({ wakes: [], settled: false });

  const woken = await app('late-woken');
  routes.onWake((projectId) => void routes.switchUpstream(projectId, woken, 'rel-late'));
  await follow(routes);
  const answer = await held;
  expect(answer).toMatchObject({ status: 200, json: { name: 'late-woken' } });
  expect(wakes).toEqual(['p2']);
}, 30_000);

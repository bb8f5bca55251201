// WebSockets through the svc-ingress process: a real svc-ingress child follows a control-plane
// RouteTable (followEdgeRoutes) and joins an app host's upgrade straight to a real app speaking
// WebSocket (fixtures/apps/websocket-echo), with no control plane on control.sock at all; the socket
// stays up when the control plane detaches, and a cutover's drain (asked over the route session, as
// the release pipeline does) waits for it and closes it once the drain runs out.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../../src/core/logger.js';
import { askEdge } from '../../../src/ingress/edge/edge-control.js';
import { edgePaths } from '../../../src/ingress/edge/edge-paths.js';
import { followEdgeRoutes, type EdgeRoutes } from '../../../src/ingress/edge/follow-edge-routes.js';
import { RouteTable, type RequestRecord } from '../../../src/ingress/index.js';
import { spawnEdgeIngress } from './spawn-edge-ingress.js';
import { startEchoApp, type EchoApp } from '../websocket-app.js';
import { openWebSocket } from '../websocket-client.js';

let dir: string;
let child: ChildProcess;
let port: number;
const apps: EchoApp[] = [];
const logger = createLogger({ level: 'silent' });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-edge-ws-'));
  ({ child, port } = await spawnEdgeIngress({ dir, holdMs: 2000 }));
}, 30_000);

afterAll(async () => {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await Promise.all(apps.map((app) => app.kill()));
  await rm(dir, { recursive: true, force: true });
});

const hello = async (socket: { next(): Promise<string> }) =>
  (JSON.parse(await socket.next()) as { hello: { release: string; headers: Record<string, string> } }).hello;

it('joins app WebSockets to the release with no control plane, keeps them across a detach, and drains them on a cutover', async () => {
  const [blue, green] = await Promise.all([startEchoApp('rel_blue'), startEchoApp('rel_green')]);
  apps.push(blue, green);
  const routes = new RouteTable();
  routes.setProject({ id: 'prj_ws', slug: 'ws' }, blue, 'rel_blue');
  const records: RequestRecord[] = [];
  let follower: EdgeRoutes = followEdgeRoutes({
    socketPath: edgePaths(dir).ingressSocket,
    ingress: { routes, report: (record) => records.push(record) },
    settings: { baseDomain: 'localhost', platformHosts: [], trustProxy: false },
    logger,
  });
  expect(await follower.attached(5_000)).toBe(true);
  const host = `ws.localhost:${port}`;

  const socket = await openWebSocket(port, host, '/ws', { authorization: 'Bearer svc_token', cookie: 'svc_console=x; app=1' });
  const first = await hello(socket);
  expect(first.release).toBe('rel_blue');
  expect(first.headers).toMatchObject({ cookie: 'app=1', 'x-forwarded-for': '127.0.0.1', 'x-forwarded-host': host });
  expect(first.headers.authorization).toBeUndefined();
  for (let i = 0; i < 10; i++) expect(await socket.echo(`m${i}`)).toBe(`m${i}`);
  const live = await askEdge(edgePaths(dir).ingressSocket, { op: 'routes' });
  expect(live?.ok && live.routes).toMatchObject([{ projectId: 'prj_ws', inFlight: 1 }]);
  // The handshake's record reaches the control plane with its end time, like a request's.
  await expect.poll(() => records.length, { timeout: 5_000 }).toBeGreaterThan(0);
  expect(records[0]).toMatchObject({ projectId: 'prj_ws', releaseId: 'rel_blue', status: 101 });
  expect(records[0]!.endedAt).toBeGreaterThan(Date.now() - 5_000);

  // The control plane goes away: the open socket keeps echoing and new ones open.
  follower.close();
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await socket.echo('control plane gone')).toBe('control plane gone');
  const second = await openWebSocket(port, host);
  expect((await hello(second)).release).toBe('rel_blue');
  second.close();

  // It comes back and cuts over to green: the old socket holds blue's drain until it runs out, then is closed.
  follower = followEdgeRoutes({
    socketPath: edgePaths(dir).ingressSocket,
    ingress: { routes, report: () => undefined },
    settings: { baseDomain: 'localhost', platformHosts: [], trustProxy: false },
    logger,
  });
  expect(await follower.attached(5_000)).toBe(true);
  const blueTarget = await routes.switchUpstream('prj_ws', green, 'rel_green');
  const began = Date.now();
  const drained = routes.drain(blueTarget, 600);
  expect(await socket.echo('during the drain')).toBe('during the drain');
  const onGreen = await openWebSocket(port, host);
  expect((await hello(onGreen)).release).toBe('rel_green');
  expect(await drained).toBe(false);
  await socket.closed;
  expect(Date.now() - began).toBeGreaterThanOrEqual(550);
  expect(Date.now() - began).toBeLessThan(3_000);
  expect(await onGreen.echo('green')).toBe('green');
  // A drain whose socket closes in time succeeds at once.
  const greenTarget = await routes.switchUpstream('prj_ws', blue, 'rel_blue');
  const quick = routes.drain(greenTarget, 5_000);
  const closedAt = Date.now();
  onGreen.close();
  expect(await quick).toBe(true);
  expect(Date.now() - closedAt).toBeLessThan(1_500);
  follower.close();
}, 30_000);

it('a restarted control plane routing its re-adopted app (new target id, same address and release) keeps the open socket counted, so the next cutover drains it', async () => {
  const [red, white] = await Promise.all([startEchoApp('rel_red'), startEchoApp('rel_white')]);
  apps.push(red, white);
  const settings = { baseDomain: 'localhost', platformHosts: [], trustProxy: false };
  const before = new RouteTable();
  before.setProject({ id: 'prj_ws2', slug: 'ws2' }, red, 'rel_red');
  const first = followEdgeRoutes({ socketPath: edgePaths(dir).ingressSocket, ingress: { routes: before, report: () => undefined }, settings, logger });
  expect(await first.attached(5_000)).toBe(true);
  const host = `ws2.localhost:${port}`;
  const socket = await openWebSocket(port, host, '/ws');
  expect((await hello(socket)).release).toBe('rel_red');
  first.close();

  // The next control plane starts with an empty table, attaches, then routes the app it re-adopted.
  const after = new RouteTable();
  const second = followEdgeRoutes({ socketPath: edgePaths(dir).ingressSocket, ingress: { routes: after, report: () => undefined }, settings, logger });
  expect(await second.attached(5_000)).toBe(true);
  after.setProject({ id: 'prj_ws2', slug: 'ws2' }, red, 'rel_red');
  await new Promise((resolve) => setTimeout(resolve, 100));
  const live = await askEdge(edgePaths(dir).ingressSocket, { op: 'routes' });
  expect(live?.ok && live.routes?.find((r) => r.projectId === 'prj_ws2')).toMatchObject({ inFlight: 1 });
  expect(await socket.echo('still red')).toBe('still red');

  // Its first cutover drains the socket it never saw opened, and closes it when the drain runs out.
  const redTarget = await after.switchUpstream('prj_ws2', white, 'rel_white');
  const began = Date.now();
  expect(await after.drain(redTarget, 600)).toBe(false);
  await socket.closed;
  expect(Date.now() - began).toBeGreaterThanOrEqual(550);
  second.close();
}, 30_000);

// WebSockets to apps through the ingress's proxy (the in-process ingress composes the same
// RouteTable, IngressProxy, routeRequest/routeUpgrade and serveUpgrades on the control plane's
// server): a server on port 0 joins an app host's upgrade to a real app speaking WebSocket
// (fixtures/apps/websocket-echo), with the platform's credentials stripped from the handshake; a
// cutover's drain waits for the open socket and closes it when its time runs out; other upgrades
// get a 404 instead of hanging.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { IngressProxy } from '../../src/ingress/proxy-request.js';
import { routeRequest, routeUpgrade } from '../../src/ingress/route-request.js';
import { RouteTable } from '../../src/ingress/route-table.js';
import { serveUpgrades } from '../../src/ingress/serve-upgrades.js';
import { openWebSocket, UpgradeRefused } from './websocket-client.js';
import { startEchoApp, type EchoApp } from './websocket-app.js';

let server: Server;
let routes: RouteTable;
let port: number;
const apps: EchoApp[] = [];

beforeAll(async () => {
  let proxy: IngressProxy | null = null;
  routes = new RouteTable({ onRetired: (target) => proxy?.retire(target), onDrainTimeout: (target) => proxy?.closeUpgrades(target) });
  const forward = (proxy = new IngressProxy({ routes, trustProxy: false, observers: [] }));
  server = createServer((req, res) => {
    if (!routeRequest(routes, forward, req, res)) res.writeHead(404).end();
  });
  serveUpgrades(server, { upgrade: (req, socket, head) => routeUpgrade(routes, forward, req, socket, head) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
}, 30_000);

afterAll(async () => {
  await Promise.all(apps.map((app) => app.kill()));
  server.closeAllConnections();
  server.close();
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof UpgradeRefused ? { status: error.status, body: error.body } : String(error)),
  );

it('echoes through the project host, strips platform credentials, drains a cutover and closes the socket when the drain runs out', async () => {
  const [blue, green] = await Promise.all([startEchoApp('rel_blue'), startEchoApp('rel_green')]);
  apps.push(blue, green);
  routes.setProject({ id: 'prj_ws', slug: 'ws' }, blue, 'rel_blue');
  const host = `ws.localhost:${port}`;

  const socket = await openWebSocket(port, host, '/ws', {
    authorization: 'Bearer svc_secret',
    cookie: 'svc_console=s; mine=1',
    'x-svc-client-address': '6.6.6.6',
  });
  const hello = JSON.parse(await socket.next()) as { hello: { release: string; headers: Record<string, string> } };
  expect(hello.hello.release).toBe('rel_blue');
  expect(hello.hello.headers.authorization).toBeUndefined();
  expect(hello.hello.headers.cookie).toBe('mine=1');
  expect(hello.hello.headers['x-svc-client-address']).toBeUndefined();
  expect(hello.hello.headers['x-forwarded-for']).toBe('127.0.0.1');
  expect(hello.hello.headers.upgrade).toBe('websocket');
  for (let i = 0; i < 20; i++) expect(await socket.echo(`message ${i}`)).toBe(`message ${i}`);
  expect(routes.get('prj_ws')!.target!.inFlight).toBe(1);

  // Cutover: the open socket holds the old target; a drain closed before it ran out succeeds.
  const blueTarget = await routes.switchUpstream('prj_ws', green, 'rel_green');
  const fresh = await openWebSocket(port, host);
  expect((JSON.parse(await fresh.next()) as { hello: { release: string } }).hello.release).toBe('rel_green');
  const drained = routes.drain(blueTarget, 5_000);
  expect(await socket.echo('still on blue')).toBe('still on blue');
  const began = Date.now();
  socket.close();
  expect(await drained).toBe(true);
  expect(Date.now() - began).toBeLessThan(1_000);

  // A drain that runs out closes the sockets still joined to the old target.
  const greenTarget = await routes.switchUpstream('prj_ws', blue, 'rel_blue');
  expect(await fresh.echo('on green')).toBe('on green');
  const timedOut = Date.now();
  expect(await routes.drain(greenTarget, 300)).toBe(false);
  await fresh.closed;
  expect(Date.now() - timedOut).toBeLessThan(2_000);
  // The proxy's side of the socket closes right after the client saw it close.
  for (let i = 0; i < 50 && greenTarget!.inFlight > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(greenTarget!.inFlight).toBe(0);
  fresh.close();

  // Not an app's upgrade: reserved paths and platform hosts get a 404, the app's own refusal passes.
  expect(await refusal(openWebSocket(port, `127.0.0.1:${port}`))).toMatchObject({ status: 404 });
  expect(await refusal(openWebSocket(port, host, '/_svc/ws'))).toMatchObject({ status: 404 });
  expect(await refusal(openWebSocket(port, host, '/not-ws'))).toMatchObject({ status: 400 });
  // No active release: 503 with the ingress's code.
  routes.setProject({ id: 'prj_none', slug: 'none' }, null, null);
  expect(await refusal(openWebSocket(port, `none.localhost:${port}`))).toMatchObject({
    status: 503,
    body: expect.stringContaining('SVC_INGRESS_NO_ACTIVE_RELEASE'),
  });
}, 30_000);

// The data plane through the real platform: an app's WebSocket goes through svc-ingress straight to
// the app (fixtures/apps/websocket-echo), keeps echoing while the control plane is SIGKILLed and
// restarted, and a deploy's cutover drains it and then closes it; and a control plane whose
// ingress code differs from the running ingress's (one started from dist/, the next from src/) has
// the ingress hand its listening socket to a successor under steady traffic without a failed request.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { askEdge } from '../../src/ingress/edge/edge-control.js';
import { edgePaths } from '../../src/ingress/edge/edge-paths.js';
import { openWebSocket, UpgradeRefused, type TestWebSocket } from '../ingress/websocket-client.js';
import { removeDataDir } from '../releases/release-support.js';
import { bootstrapAccount } from '../support/account.js';
import { deployFixture, deployNext } from '../support/deploy-fixture.js';
import { mixedTraffic } from '../support/mixed-traffic.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';
import { alive } from '../support/process-alive.js';

const roots: string[] = [];
const planes: StartedPlatform[] = [];

afterAll(async () => {
  for (const plane of planes.reverse()) await plane.stop();
  for (const root of roots) await removeDataDir(root);
}, 60_000);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function killed(plane: StartedPlatform, signal: NodeJS.Signals): Promise<void> {
  if (plane.child.exitCode !== null || plane.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => plane.child.once('exit', () => resolve()));
  plane.child.kill(signal);
  await exited;
}

const hello = async (socket: TestWebSocket) => (JSON.parse(await socket.next(10_000)) as { hello: { release: string; pid: number } }).hello;

it('an app WebSocket goes through svc-ingress to the app, survives a control-plane SIGKILL, and a deploy drains then closes it', async () => {
  const root = await mkdtemp(join(tmpdir(), 'svc-ws-'));
  roots.push(root);
  const dataDir = join(root, 'data');
  const env = { SVC_DRAIN_TIMEOUT_MS: '1500' };
  const first = await startPlatform({ dataDir, env });
  planes.push(first);
  const account = await bootstrapAccount(first.url);
  const app = await deployFixture(first.url, account, { app: 'websocket-echo', slug: 'live', workDir: root });
  const host = `live.localhost:${first.port}`;

  const socket = await openWebSocket(first.port, host, '/ws', { authorization: `Bearer ${account.accessToken}` });
  expect((await hello(socket)).release).toBe(app.releaseId);
  for (let i = 0; i < 5; i++) expect(await socket.echo(`before ${i}`)).toBe(`before ${i}`);

  // The control plane dies: the socket keeps echoing, and new ones open, through the ingress alone.
  await killed(first, 'SIGKILL');
  expect(await socket.echo('control plane gone')).toBe('control plane gone');
  const whileDown = await openWebSocket(first.port, host);
  expect((await hello(whileDown)).release).toBe(app.releaseId);
  expect(await whileDown.echo('down')).toBe('down');
  whileDown.close();

  const second = await startPlatform({ dataDir, port: first.port, env });
  planes.push(second);
  expect(second.ingressPid).toBe(first.ingressPid);
  expect(await socket.echo('control plane back')).toBe('control plane back');

  // A deploy cuts over: the open socket is drained (it still echoes meanwhile), closed once the
  // drain runs out, and a new socket reaches the new release.
  const began = Date.now();
  const deploying = deployNext(second.url, account, app.projectId, 'websocket-echo', root);
  await socket.closed;
  const closedAfterMs = Date.now() - began;
  const next = await deploying;
  expect(next).not.toBe(app.releaseId);
  const fresh = await openWebSocket(first.port, host);
  expect((await hello(fresh)).release).toBe(next);
  expect(await fresh.echo('new release')).toBe('new release');
  fresh.close();
  console.log(`app websocket: closed ${closedAfterMs} ms after the deploy began (drain bound 1500 ms)`);
  expect(closedAfterMs).toBeGreaterThanOrEqual(1_400);
}, 180_000);

it('with SVC_INGRESS_PROCESS=off the control plane joins app WebSockets itself and answers other upgrades 404', async () => {
  const root = await mkdtemp(join(tmpdir(), 'svc-ws-inproc-'));
  roots.push(root);
  const plane = await startPlatform({ dataDir: join(root, 'data'), env: { SVC_INGRESS_PROCESS: 'off' } });
  planes.push(plane);
  expect(plane.ingressPid).toBeNull();
  const account = await bootstrapAccount(plane.url);
  const app = await deployFixture(plane.url, account, { app: 'websocket-echo', slug: 'inproc', workDir: root });
  const socket = await openWebSocket(plane.port, `inproc.localhost:${plane.port}`, '/ws', { cookie: 'svc_console=secret; theirs=1' });
  const greeting = (JSON.parse(await socket.next(10_000)) as { hello: { release: string; headers: Record<string, string> } }).hello;
  expect(greeting.release).toBe(app.releaseId);
  expect(greeting.headers.cookie).toBe('theirs=1');
  expect(await socket.echo('in process')).toBe('in process');
  socket.close();
  const refused = await openWebSocket(plane.port, `127.0.0.1:${plane.port}`, '/api/anything').catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(UpgradeRefused);
  expect((refused as UpgradeRefused).status).toBe(404);
}, 120_000);

it('a control plane with other ingress code has the running ingress hand over its port under steady traffic: no failed request, new pid, old one exits, routes re-attached', async () => {
  const root = await mkdtemp(join(tmpdir(), 'svc-handoff-'));
  roots.push(root);
  const dataDir = join(root, 'data');
  // From dist/: its ingress runs the built .js modules.
  const first = await startPlatform({ dataDir, entry: 'dist/src/platform-main.js' });
  planes.push(first);
  const account = await bootstrapAccount(first.url);
  const app = await deployFixture(first.url, account, { slug: 'steady', workDir: root });
  const before = await askEdge(edgePaths(dataDir).ingressSocket, { op: 'status' });
  expect(before?.ok).toBe(true);
  const oldPid = first.ingressPid!;

  const traffic = mixedTraffic(
    { origin: first.url, appHost: `steady.localhost:${first.port}`, apiPath: `/api/projects/${app.projectId}`, token: account.accessToken },
    3,
  );
  await pause(1_000);
  await killed(first, 'SIGTERM');
  // From src/ (tsx): other ingress code, so the running ingress hands over to it.
  const second = await startPlatform({ dataDir, port: first.port });
  planes.push(second);
  expect(second.ingressPid).not.toBe(oldPid);
  const deadline = Date.now() + 20_000;
  while (alive(oldPid) && Date.now() < deadline) await pause(50);
  expect(alive(oldPid)).toBe(false);
  await pause(1_000);
  const report = await traffic.stop();
  const after = await askEdge(edgePaths(dataDir).ingressSocket, { op: 'status' });
  console.log(
    `ingress upgrade through svc-platform: ${report.ok} ok, ${report.failures.length} failed, ingress ${oldPid} (build ${before?.ok ? before.status.build : '?'}) → ${second.ingressPid} (build ${after?.ok ? after.status.build : '?'}); failures ${JSON.stringify(report.failures.slice(0, 10))}`,
  );
  expect(report.failures).toEqual([]);
  expect(report.ok).toBeGreaterThan(300);
  expect(after).toMatchObject({ ok: true, status: { pid: second.ingressPid, routing: { table: true, attached: true } } });
  expect(after?.ok && before?.ok && after.status.build !== before.status.build).toBe(true);
  const served = await fetch(`${second.url}/`, { headers: { host: `steady.localhost:${second.port}` } });
  expect(served.status).toBe(200);
}, 180_000);

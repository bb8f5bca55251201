// An ingress upgrade without dropping a connection: a real svc-ingress serving steady traffic
// (keep-alive connections and a new connection per request) to a real app is asked to hand over
// (the `handoff` command, then SIGUSR2). Its successor inherits the listening socket and serves; the
// old process finishes its connections and exits; not one request fails, and the control plane's
// route session re-attaches to the successor (a switch made afterwards is what it routes).
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../../src/core/logger.js';
import { askEdge, type EdgeStatus } from '../../../src/ingress/edge/edge-control.js';
import { edgePaths } from '../../../src/ingress/edge/edge-paths.js';
import { followEdgeRoutes, type EdgeRoutes } from '../../../src/ingress/edge/follow-edge-routes.js';
import { RouteTable } from '../../../src/ingress/index.js';
import { alive } from '../../support/process-alive.js';
import { spawnEdgeIngress } from './spawn-edge-ingress.js';
import { startEchoApp, type EchoApp } from '../websocket-app.js';

let dir: string;
let first: ChildProcess;
let port: number;
const apps: EchoApp[] = [];
let follower: EdgeRoutes | null = null;
const logger = createLogger({ level: 'silent' });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-handoff-'));
  ({ child: first, port } = await spawnEdgeIngress({ dir, holdMs: 2000 }));
}, 30_000);

afterAll(async () => {
  follower?.close();
  const reply = await askEdge(edgePaths(dir).ingressSocket, { op: 'stop' });
  if (reply?.ok) for (let i = 0; i < 200 && alive(reply.status.pid); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  if (first.exitCode === null && first.signalCode === null) first.kill('SIGKILL');
  await Promise.all(apps.map((app) => app.kill()));
  await rm(dir, { recursive: true, force: true });
}, 30_000);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function status(): Promise<EdgeStatus> {
  const reply = await askEdge(edgePaths(dir).ingressSocket, { op: 'status' });
  if (!reply?.ok) throw new Error('no ingress answers');
  return reply.status;
}

async function waitFor(check: () => Promise<boolean> | boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await pause(25);
  }
  return check();
}

/** Steady traffic to the app host: `keepAlive` loops over a pooled agent, `fresh` loops opening a connection per request. */
function traffic(host: string, keepAlive: number, fresh: number) {
  const agent = new Agent({ connections: keepAlive });
  const failures: string[] = [];
  const served = new Map<string, number>();
  let ok = 0;
  let running = true;
  const count = (release: string) => {
    ok++;
    served.set(release, (served.get(release) ?? 0) + 1);
  };
  const pooled = async () => {
    while (running) {
      try {
        const res = await agent.request({ origin: `http://127.0.0.1:${port}`, path: '/', method: 'GET', headers: { host } });
        const body = (await res.body.json()) as { release?: string };
        if (res.statusCode === 200 && body.release) count(body.release);
        else failures.push(`pooled ${res.statusCode} ${JSON.stringify(body)}`);
      } catch (error) {
        failures.push(`pooled ${(error as Error).message}`);
      }
    }
  };
  const single = async () => {
    while (running) {
      await new Promise<void>((resolve) => {
        const req = get({ host: '127.0.0.1', port, path: '/', headers: { host }, agent: false }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => (text += c));
          res.on('end', () => {
            const release = res.statusCode === 200 ? (JSON.parse(text) as { release?: string }).release : undefined;
            if (release) count(release);
            else failures.push(`fresh ${res.statusCode} ${text}`);
            resolve();
          });
          res.on('error', (error) => {
            failures.push(`fresh ${error.message}`);
            resolve();
          });
        });
        req.on('error', (error) => {
          failures.push(`fresh ${error.message}`);
          resolve();
        });
      });
    }
  };
  const loops = [...Array.from({ length: keepAlive }, pooled), ...Array.from({ length: fresh }, single)];
  return {
    get ok() {
      return ok;
    },
    failures,
    served,
    async stop() {
      running = false;
      await Promise.all(loops);
      await agent.close();
    },
  };
}

it('hands the listening socket to a new ingress under steady traffic: 0 failed requests, the new pid serves, the old one exits, the control plane re-attaches', async () => {
  const [blue, green] = await Promise.all([startEchoApp('rel_blue'), startEchoApp('rel_green')]);
  apps.push(blue, green);
  const routes = new RouteTable();
  routes.setProject({ id: 'prj_h', slug: 'steady' }, blue, 'rel_blue');
  let records = 0;
  follower = followEdgeRoutes({
    socketPath: edgePaths(dir).ingressSocket,
    ingress: { routes, report: () => void records++ },
    settings: { baseDomain: 'localhost', platformHosts: [], trustProxy: false },
    logger,
  });
  expect(await follower.attached(5_000)).toBe(true);
  const host = `steady.localhost:${port}`;
  const load = traffic(host, 6, 2);
  await pause(700);
  const before = load.ok;

  // Handoff over the command socket: the reply is the successor's status once it serves.
  const oldExited = new Promise<void>((resolve) => first.once('exit', () => resolve()));
  const began = Date.now();
  const reply = await askEdge(edgePaths(dir).ingressSocket, { op: 'handoff' }, 30_000);
  expect(reply).toMatchObject({ ok: true, status: { listen: '127.0.0.1:0', address: { port } } });
  const second = reply!.ok ? reply!.status.pid : 0;
  expect(second).not.toBe(first.pid);
  expect(alive(second)).toBe(true);
  await oldExited;
  const handoffMs = Date.now() - began;
  expect(first.exitCode).toBe(0);
  // The control plane's route session re-attached to the successor, which owns the run files.
  expect(await waitFor(async () => (await status()).routing.attached, 5_000)).toBe(true);
  expect((await status()).pid).toBe(second);
  expect(JSON.parse(await readFile(edgePaths(dir).pidFile, 'utf8'))).toMatchObject({ pid: second });
  await pause(300);
  const afterFirst = load.ok;

  // A switch made now reaches the successor's table.
  await routes.switchUpstream('prj_h', green, 'rel_green');
  expect(await waitFor(() => (load.served.get('rel_green') ?? 0) > 20, 5_000)).toBe(true);

  // SIGUSR2 hands over again, to a third process.
  process.kill(second, 'SIGUSR2');
  expect(
    await waitFor(async () => (await askEdge(edgePaths(dir).ingressSocket, { op: 'status' }))?.ok === true && (await status()).pid !== second, 20_000),
  ).toBe(true);
  const third = (await status()).pid;
  expect(await waitFor(() => !alive(second), 15_000)).toBe(true);
  expect(await waitFor(async () => (await status()).routing.attached, 5_000)).toBe(true);
  await pause(300);
  await load.stop();
  // Every request's record reached the control plane: the old processes passed theirs on.
  await waitFor(() => records >= load.ok, 5_000);
  console.log(
    `ingress handoff: ${records} records for ${load.ok} requests ok (${before} before the first handoff, ${afterFirst - before} during it, ${handoffMs} ms until the old process exited), ${load.failures.length} failed; pids ${first.pid} → ${second} → ${third}; served ${JSON.stringify(Object.fromEntries(load.served))}; failures ${JSON.stringify(load.failures.slice(0, 10))}`,
  );
  expect(load.failures).toEqual([]);
  expect(load.ok).toBeGreaterThan(300);
  expect(records).toBe(load.ok);
  expect(afterFirst - before).toBeGreaterThan(20);
  expect(alive(third)).toBe(true);
}, 90_000);

it('a request the old ingress holds for a project in a hold goes to the target routed after the handoff', async () => {
  const routes = new RouteTable();
  const [blue, green] = apps;
  routes.setProject({ id: 'prj_hold', slug: 'held' }, blue!, 'rel_blue');
  follower?.close();
  follower = followEdgeRoutes({
    socketPath: edgePaths(dir).ingressSocket,
    ingress: { routes, report: () => undefined },
    settings: { baseDomain: 'localhost', platformHosts: [], trustProxy: false },
    logger,
  });
  expect(await follower.attached(5_000)).toBe(true);
  const oldPid = (await status()).pid;
  await routes.hold('prj_hold', 20_000);
  await pause(100);
  // Held in the old ingress (its connection stays there), answered only once a target is routed.
  const answer = new Promise<{ status: number; release?: string }>((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/', headers: { host: `held.localhost:${port}` }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, release: res.statusCode === 200 ? (JSON.parse(text) as { release: string }).release : text }));
    }).on('error', reject);
  });
  await pause(200);
  const reply = await askEdge(edgePaths(dir).ingressSocket, { op: 'handoff' }, 30_000);
  expect(reply?.ok).toBe(true);
  expect(await waitFor(async () => (await status()).routing.attached, 5_000)).toBe(true);
  expect(alive(oldPid)).toBe(true);
  await routes.switchUpstream('prj_hold', green!, 'rel_green');
  expect(await answer).toEqual({ status: 200, release: 'rel_green' });
  expect(await waitFor(() => !alive(oldPid), 15_000)).toBe(true);
}, 60_000);

// Requests for an asleep route over real HTTP: the control plane's own ingress holds a burst while the
// route wakes (listeners told once) and serves all of it from the app switched in; a wake hold that
// runs out answers 503 with Retry-After; an awake route without a target answers the plain 503; an
// upgrade (WebSocket) waits like a request. Real upstream processes on port 0.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngressProxy } from '../../src/ingress/proxy-request.js';
import type { RequestRecord } from '../../src/ingress/request-record.js';
import { routeRequest, routeUpgrade } from '../../src/ingress/route-request.js';
import { RouteTable } from '../../src/ingress/route-table.js';
import { serveUpgrades } from '../../src/ingress/serve-upgrades.js';
import { startListeningPlane, startUpstream, type ListeningPlane, type UpstreamProcess } from './support.js';
import { startEchoApp, type EchoApp } from './websocket-app.js';
import { openWebSocket } from './websocket-client.js';

const upstreams: UpstreamProcess[] = [];
const apps: EchoApp[] = [];
afterAll(async () => {
  await Promise.all([...upstreams.map((u) => u.stop()), ...apps.map((a) => a.kill())]);
});

interface Answer {
  status: number;
  retryAfter: string | null;
  body: { name?: string; bytes?: number; error?: { code: string; message: string } };
  ms: number;
}

async function ask(url: string, host: string, path = '/whoami'): Promise<Answer> {
  const began = Date.now();
  const post = path === '/echo';
  const res = await request(`${url}${path}`, { method: post ? 'POST' : 'GET', headers: { host }, ...(post ? { body: 'woken body' } : {}) });
  const retryAfter = res.headers['retry-after'];
  return {
    status: res.statusCode,
    retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
    body: (await res.body.json()) as Answer['body'],
    ms: Date.now() - began,
  };
}

describe('the control plane ingress', () => {
  let plane: ListeningPlane;
  beforeAll(async () => {
    plane = await startListeningPlane();
  });
  afterAll(async () => {
    await plane?.close();
  });

  it('holds a burst for an asleep route, wakes it once, and serves every request from the app switched in (records carry the project)', async () => {
    const { routes } = plane.plane.ingress;
    const project = { id: 'prj_sleepy', slug: 'sleepy' };
    const host = `sleepy.localhost:${plane.port}`;
    const sleeper = await startUpstream('SLEEPER');
    upstreams.push(sleeper);
    routes.setProject(project, { host: '127.0.0.1', port: sleeper.port }, 'rel_sleeper');
    expect((await ask(plane.url, host)).body.name).toBe('SLEEPER');
    // Put to sleep the way an app is stopped: asleep first, then out of rotation under the release
    // pipeline's hold (a request in that window must wake it too), drained, stopped.
    routes.setAsleep(project.id, true);
    await routes.drain(await routes.hold(project.id, 30_000), 1_000);
    await sleeper.stop();
    const wakes: string[] = [];
    const off = routes.onWake((projectId) => wakes.push(projectId));
    const records: RequestRecord[] = [];
    const stop = plane.plane.ingress.onRequestComplete((record) => records.push(record));
    try {
      let settled = 0;
      const burst = Array.from({ length: 24 }, (_, i) => ask(plane.url, host, i % 4 === 0 ? '/echo' : '/whoami').finally(() => settled++));
      const upstream = await startUpstream('WOKEN');
      upstreams.push(upstream);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect({ wakes, settled, held: routes.get(project.id)!.hold!.waiters.size }).toEqual({ wakes: [project.id], settled: 0, held: 24 });

      await routes.switchUpstream(project.id, { host: '127.0.0.1', port: upstream.port }, 'rel_woken');
      const answers = await Promise.all(burst);
      expect(answers.map((a) => a.status)).toEqual(Array(24).fill(200));
      expect(answers.every((a) => a.body.name === 'WOKEN')).toBe(true);
      expect(answers.filter((a) => a.body.bytes !== undefined).every((a) => a.body.bytes === 'woken body'.length)).toBe(true);
      expect(Math.min(...answers.map((a) => a.ms))).toBeGreaterThanOrEqual(250);
      expect({ asleep: routes.isAsleep(project.id), wakes }).toEqual({ asleep: false, wakes: [project.id] });
      // Reported when each response closed, which may follow the client's read by a moment.
      const mine = records.filter((r) => r.projectId === project.id);
      for (let i = 0; i < 100 && mine.length < 24; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        mine.splice(0, mine.length, ...records.filter((r) => r.projectId === project.id));
      }
      expect(mine).toHaveLength(24);
      expect(mine.every((r) => r.status === 200 && r.releaseId === 'rel_woken' && r.platform === false)).toBe(true);
    } finally {
      off();
      stop();
    }
  }, 30_000);
});

describe('a table with a short wake hold', () => {
  const WAKE_HOLD_MS = 400;
  let server: Server;
  let routes: RouteTable;
  let url: string;
  let port: number;
  const wakes: string[] = [];

  beforeAll(async () => {
    let proxy: IngressProxy | null = null;
    routes = new RouteTable({
      wakeHoldMs: WAKE_HOLD_MS,
      onRetired: (target) => proxy?.retire(target),
      onDrainTimeout: (target) => proxy?.closeUpgrades(target),
    });
    routes.onWake((projectId) => wakes.push(projectId));
    const forward = (proxy = new IngressProxy({ routes, trustProxy: false, observers: [] }));
    server = createServer((req, res) => {
      if (!routeRequest(routes, forward, req, res)) res.writeHead(404).end();
    });
    serveUpgrades(server, { upgrade: (req, socket, head) => routeUpgrade(routes, forward, req, socket, head) });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('answers 503 with Retry-After when the wake hold runs out; the next request starts a new hold', async () => {
    routes.setProject({ id: 'p_late', slug: 'late' }, null, null);
    routes.setAsleep('p_late', true);
    wakes.length = 0;
    const answers = await Promise.all([ask(url, 'late.localhost'), ask(url, 'late.localhost')]);
    for (const answer of answers) {
      expect(answer).toMatchObject({ status: 503, retryAfter: '5', body: { error: { code: 'SVC_INGRESS_NO_ACTIVE_RELEASE' } } });
      expect(answer.ms).toBeGreaterThanOrEqual(WAKE_HOLD_MS - 50);
    }
    expect(wakes).toEqual(['p_late']);
    const again = ask(url, 'late.localhost');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(wakes).toEqual(['p_late', 'p_late']);
    expect((await again).status).toBe(503);
  });

  it('an awake route without a target answers the plain 503 at once, and so do the requests of a wake hold it ends', async () => {
    routes.setProject({ id: 'p_off', slug: 'off' }, null, null);
    routes.setAsleep('p_off', true);
    const held = ask(url, 'off.localhost');
    await new Promise((resolve) => setTimeout(resolve, 100));
    routes.setAsleep('p_off', false);
    const ended = await held;
    expect(ended).toMatchObject({
      status: 503,
      retryAfter: null,
      body: { error: { code: 'SVC_INGRESS_NO_ACTIVE_RELEASE', message: 'This project has no active release.' } },
    });
    expect(ended.ms).toBeLessThan(WAKE_HOLD_MS - 100);
    const plain = await ask(url, 'off.localhost');
    expect(plain).toMatchObject({ status: 503, retryAfter: null });
    expect(plain.ms).toBeLessThan(WAKE_HOLD_MS - 100);
  });

  it('holds an upgrade (WebSocket) for an asleep route and joins it to the app switched in', async () => {
    routes.setProject({ id: 'p_ws', slug: 'sleepws' }, null, null);
    routes.setAsleep('p_ws', true);
    wakes.length = 0;
    const app = await startEchoApp('rel_ws');
    apps.push(app);
    const opening = openWebSocket(port, `sleepws.localhost:${port}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(wakes).toEqual(['p_ws']);
    await routes.switchUpstream('p_ws', app, 'rel_ws');
    const socket = await opening;
    expect((JSON.parse(await socket.next()) as { hello: { release: string } }).hello.release).toBe('rel_ws');
    expect(await socket.echo('awake')).toBe('awake');
    socket.close();
  }, 20_000);
});

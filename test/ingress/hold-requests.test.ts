// Held requests: while a project is held (no target), new requests wait unread and go to the next
// target; when the hold runs out they get 503 with Retry-After; a client that leaves is forgotten.
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startListeningPlane, startUpstream, type ListeningPlane, type UpstreamProcess } from './support.js';

let plane: ListeningPlane;
const upstreams: UpstreamProcess[] = [];
const project = { id: 'prj_hold', slug: 'hold' };

beforeAll(async () => {
  plane = await startListeningPlane();
});
afterAll(async () => {
  await Promise.all(upstreams.map((u) => u.stop()));
  await plane?.close();
});

async function ask(path = '/whoami'): Promise<{ status: number; retryAfter: string | null; body: { name?: string; error?: { code: string } } }> {
  const res = await request(`${plane.url}${path}`, {
    method: path === '/echo' ? 'POST' : 'GET',
    headers: { host: `hold.localhost:${plane.port}`, 'content-type': 'text/plain' },
    ...(path === '/echo' ? { body: 'held body' } : {}),
  });
  const retryAfter = res.headers['retry-after'];
  return {
    status: res.statusCode,
    retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
    body: (await res.body.json()) as { name?: string; error?: { code: string } },
  };
}

it('holds requests while a project has no target and hands them to the next one', async () => {
  const [a, b] = await Promise.all([startUpstream('A'), startUpstream('B')]);
  upstreams.push(a, b);
  const routes = plane.plane.ingress.routes;
  routes.setProject(project, { host: '127.0.0.1', port: a.port }, 'rel_a');
  expect((await ask()).body.name).toBe('A');

  await routes.hold(project.id, 10_000);
  const began = Date.now();
  const pending = Promise.all([ask(), ask('/echo'), ask()]);
  await new Promise((r) => setTimeout(r, 400));
  await routes.switchUpstream(project.id, { host: '127.0.0.1', port: b.port }, 'rel_b');
  const answers = await pending;
  expect(answers.map((x) => x.status)).toEqual([200, 200, 200]);
  expect(answers.filter((x) => x.body.name !== undefined).every((x) => x.body.name === 'B')).toBe(true);
  expect(Date.now() - began).toBeGreaterThanOrEqual(350);
});

it('answers 503 with Retry-After once the hold runs out, and at once when the project is simply unrouted', async () => {
  const routes = plane.plane.ingress.routes;
  const ingress = plane.plane.ingress;
  ingress.metrics.flush();
  const before = ingress.metrics.query(project.id, '1h').totals;
  await routes.hold(project.id, 200);
  const began = Date.now();
  const expired = await ask();
  expect(expired.status).toBe(503);
  expect(expired.retryAfter).toBe('5');
  expect(expired.body.error?.code).toBe('SVC_INGRESS_NO_ACTIVE_RELEASE');
  expect(Date.now() - began).toBeGreaterThanOrEqual(150);

  await routes.switchUpstream(project.id, null, null);
  const unrouted = await ask();
  expect(unrouted.status).toBe(503);
  expect(unrouted.retryAfter).toBeNull();
  // Both are svc's own answers: counted as platform, never as the app's errors.
  ingress.metrics.flush();
  const after = ingress.metrics.query(project.id, '1h').totals;
  expect({ platform: after.platform - before.platform, errors: after.errors - before.errors }).toEqual({ platform: 2, errors: 0 });
});

it('forgets a held client that goes away, and ends every hold when the ingress closes', async () => {
  const routes = plane.plane.ingress.routes;
  await routes.hold(project.id, 60_000);
  const controller = new AbortController();
  const abandoned = request(`${plane.url}/whoami`, { headers: { host: `hold.localhost:${plane.port}` }, signal: controller.signal }).catch(() => 'aborted');
  await new Promise((r) => setTimeout(r, 100));
  controller.abort();
  expect(await abandoned).toBe('aborted');
  await new Promise((r) => setTimeout(r, 100));
  expect(routes.get(project.id)?.hold?.waiters.size ?? 0).toBe(0);

  const waiting = ask();
  await new Promise((r) => setTimeout(r, 100));
  routes.expireHolds();
  const answer = await waiting;
  expect(answer.status).toBe(503);
  expect(answer.retryAfter).toBe('5');
});

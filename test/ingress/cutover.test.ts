// Fault test: continuous HTTP load through two cutovers between real upstream processes
// (A → B, then B → a restarted release-1 process C). Zero failed requests; each old upstream is
// drained before it is stopped.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Agent } from 'undici';
import { startListeningPlane, startUpstream, type ListeningPlane, type UpstreamProcess } from './support.js';

let plane: ListeningPlane;
const upstreams: UpstreamProcess[] = [];

beforeAll(async () => {
  plane = await startListeningPlane();
});

afterAll(async () => {
  await Promise.all(upstreams.map((u) => u.stop()));
  await plane?.close();
});

it('switches under load from 20 concurrent clients with 0 failed requests and drains before stopping', async () => {
  // C plays release 1 restarted for the rollback (started up front so the switch timing does not depend on boot time).
  const [a, b, c] = await Promise.all([startUpstream('A'), startUpstream('B'), startUpstream('C')]);
  upstreams.push(a, b, c);
  const routes = plane.plane.ingress.routes;
  const project = { id: 'prj_cut', slug: 'cut' };
  routes.setProject(project, { host: '127.0.0.1', port: a.port }, 'rel_1');
  const host = `cut.localhost:${plane.port}`;

  const agent = new Agent({ connections: 20 });
  const served: Record<string, number> = {};
  const failures: string[] = [];
  let completed = 0;
  // Load runs ~1.5 s before, between and ~1 s after the two switches (about 5 s), bounded at 20 s.
  const hardDeadline = Date.now() + 20_000;
  let stopAt = Infinity;

  async function client(index: number): Promise<void> {
    for (let i = 0; Date.now() < Math.min(stopAt, hardDeadline) && i < 100_000; i++) {
      const kind = (index + i) % 10;
      // Mix: slow requests keep requests in flight across every switch; some uploads; mostly fast GETs.
      const path = kind === 0 ? '/slow?ms=250' : kind === 1 ? '/echo' : '/whoami';
      try {
        const res = await agent.request({
          origin: plane.url,
          path,
          method: kind === 1 ? 'POST' : 'GET',
          headers: { host, 'content-type': 'text/plain' },
          ...(kind === 1 ? { body: `payload-${index}-${i}` } : {}),
        });
        const body = (await res.body.json()) as { name?: string; bytes?: number };
        if (res.statusCode !== 200 || typeof body.name !== 'string') failures.push(`${path} → ${res.statusCode} ${JSON.stringify(body)}`);
        else if (kind === 1 && body.bytes !== `payload-${index}-${i}`.length) failures.push(`${path} body length ${body.bytes}`);
        else served[body.name] = (served[body.name] ?? 0) + 1;
        completed++;
      } catch (error) {
        failures.push(`${path} threw ${(error as Error).message}`);
      }
    }
  }

  const switches: { from: string; inFlightAtSwitch: number; drained: boolean }[] = [];
  // Switch only while the current upstream has requests in flight, so each drain has real work even
  // when a loaded machine is slow to get the clients going.
  async function whileBusy(): Promise<void> {
    const until = Date.now() + 10_000;
    while ((routes.get(project.id)?.target?.inFlight ?? 0) === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
  }

  async function cutover(): Promise<void> {
    await new Promise((r) => setTimeout(r, 1_500));
    await whileBusy();
    // Deploy: A → B. Drain A, then stop it.
    const previousA = await routes.switchUpstream(project.id, { host: '127.0.0.1', port: b.port }, 'rel_2');
    const inFlightA = previousA!.inFlight;
    const drainedA = await routes.drain(previousA, 10_000);
    switches.push({ from: 'A', inFlightAtSwitch: inFlightA, drained: drainedA });
    expect(previousA!.inFlight).toBe(0);
    await a.stop();

    await new Promise((r) => setTimeout(r, 1_000));
    await whileBusy();
    // Rollback: release 1 restarted as a new process C; B drains, then stops.
    const previousB = await routes.switchUpstream(project.id, { host: '127.0.0.1', port: c.port }, 'rel_1');
    const inFlightB = previousB!.inFlight;
    const drainedB = await routes.drain(previousB, 10_000);
    switches.push({ from: 'B', inFlightAtSwitch: inFlightB, drained: drainedB });
    expect(previousB!.inFlight).toBe(0);
    await b.stop();
    stopAt = Date.now() + 1_000;
  }

  await Promise.all([cutover(), ...Array.from({ length: 20 }, (_, i) => client(i))]);
  await agent.close();

  expect(failures.slice(0, 5)).toEqual([]);
  expect(switches.map((s) => s.drained)).toEqual([true, true]);
  // The drain had real work: requests were in flight on the old upstream at each switch.
  expect(
    switches.every((s) => s.inFlightAtSwitch > 0),
    JSON.stringify(switches),
  ).toBe(true);
  expect(served.A).toBeGreaterThan(0);
  expect(served.B).toBeGreaterThan(0);
  expect(served.C).toBeGreaterThan(0);
  expect(completed).toBeGreaterThan(200);

  // Every request was recorded once, per release.
  const deadlineRecords = Date.now() + 3_000;
  let totals = 0;
  while (Date.now() < deadlineRecords) {
    plane.plane.ingress.metrics.flush();
    totals = plane.plane.ingress.metrics.query(project.id, '1h').totals.requests;
    if (totals === completed) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(totals).toBe(completed);
  const rel2 = plane.plane.ingress.metrics.query(project.id, '1h', { releaseId: 'rel_2' }).totals;
  expect(rel2.requests).toBe(served.B);
  expect(rel2.errors).toBe(0);
}, 60_000);

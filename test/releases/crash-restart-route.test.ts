// A supervisor crash restart hands traffic to the restarted app once it is healthy: the ingress route
// is switched to the new process (a new target), not left on the dead one.
import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, packFixture, removeDataDir, startPlane, type Plane } from './release-support.js';

let work: string;
let plane: Plane;
let port: number;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-crash-route-'));
  const healthy = await packFixture('healthy', work);
  plane = await startPlane();
  // Listening, so requests by the project's host pass the ingress (inject() never does).
  await plane.app.listen({ host: '127.0.0.1', port: 0 });
  port = (plane.app.server.address() as AddressInfo).port;
  const res = await plane.upload(healthy);
  if (res.statusCode !== 201) throw new Error(res.body);
}, 120_000);
afterAll(async () => {
  await plane?.close();
  if (plane) await removeDataDir(plane.dataDir);
  if (work) await removeDataDir(work);
});

async function viaIngress(path: string): Promise<number> {
  const response = await request(`http://127.0.0.1:${port}${path}`, { headers: { host: `${plane.project.slug}.localhost:${port}` } });
  await response.body.dump();
  return response.statusCode;
}

describe('supervisor crash restart', () => {
  it('routes the project to the restarted app once it answers its health route', async () => {
    expect(await viaIngress('/healthz')).toBe(200);
    const crashed = plane.plane.releases.current(plane.project.id)!;
    const route = plane.plane.ingress.routes.get(plane.project.id)!;
    const before = { target: route.target, generation: route.generation };
    expect(before.target?.port).toBe(crashed.port);

    process.kill(-crashed.pid!, 'SIGKILL'); // the whole process group, as a crash would take it
    const restarted = await eventually(() => {
      const app = plane.plane.releases.current(plane.project.id);
      return app && app !== crashed && route.target !== before.target ? app : null;
    }, 20_000);
    expect(route.generation).toBeGreaterThan(before.generation);
    expect(route.target).toMatchObject({ port: restarted.port, releaseId: restarted.releaseId });
    expect(await viaIngress('/healthz')).toBe(200);
  }, 60_000);
});

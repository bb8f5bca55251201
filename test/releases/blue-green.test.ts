// Code-only deploys are blue-green: under steady traffic through the ingress, a candidate that fails
// its health check never interrupts the active release, and a healthy one takes over with no failed
// request. A release with migrations still stops first (its own tests cover that path).
import type { AddressInfo } from 'node:net';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseCutover } from '../../runner/jobs/choose-cutover.js';
import { packFixture, removeDataDir, startPlane, type Artifact, type Plane } from './release-support.js';
import { steadyTraffic } from './steady-traffic.js';

describe('chooseCutover', () => {
  it.each([
    [{ pendingMigrations: 0, priorRunning: true, journaled: false }, 'blue-green'],
    [{ pendingMigrations: 1, priorRunning: true, journaled: false }, 'stop-first'],
    [{ pendingMigrations: 0, priorRunning: false, journaled: false }, 'stop-first'],
    [{ pendingMigrations: 0, priorRunning: true, journaled: true }, 'stop-first'],
  ] as const)('%o → %s', (facts, expected) => {
    expect(chooseCutover(facts)).toBe(expected);
  });
});

describe('blue-green code-only deploys under steady traffic', () => {
  let plane: Plane;
  let work: string;
  let origin: string;
  const art: Record<string, Artifact> = {};

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'svc-bluegreen-'));
    plane = await startPlane();
    await plane.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(plane.app.server.address() as AddressInfo).port}`;
    art.v1 = await packFixture('healthy', work);
    art.failing = await packFixture('failing-health', work, async (_dir, config) => ({ ...config, health: { ...config.health, timeoutMs: 2_000 } }));
    art.v1b = await packFixture('healthy', work, async (_dir, config) => ({ ...config, env: { ...config.env, FLAVOUR: 'b' } }));
  }, 120_000);
  afterAll(async () => {
    await plane?.close();
    if (plane) await removeDataDir(plane.dataDir);
    if (work) await removeDataDir(work);
  });

  const traffic = () => steadyTraffic(origin, `${plane.project.slug}.localhost`);

  it('a failing candidate never interrupts the active release; a healthy one takes over with no failed request', async () => {
    const first = await plane.upload(art.v1!);
    expect(first.json().release.status, first.body).toBe('active');
    const v1 = first.json().release.id as string;

    const duringFailure = traffic();
    const failed = await plane.upload(art.failing!);
    const failedBody = failed.json() as { release: { status: string; failure: { step: string; code: string } } };
    const seen1 = await duringFailure.stop();
    expect(failedBody.release.status).toBe('failed');
    expect(failedBody.release.failure).toMatchObject({ step: 'health', code: 'SVC_HEALTH_CHECK_FAILED' });
    expect(seen1.failures).toEqual([]);
    expect(seen1.ok).toBeGreaterThan(20);
    expect([...seen1.releases]).toEqual([v1]);

    const duringSwitch = traffic();
    const next = await plane.upload(art.v1b!);
    await new Promise((r) => setTimeout(r, 300));
    const seen2 = await duringSwitch.stop();
    expect(next.json().release.status, next.body).toBe('active');
    const v2 = next.json().release.id as string;
    expect(seen2.failures).toEqual([]);
    expect(seen2.releases.has(v2)).toBe(true);

    const releases = (await plane.api('GET', `/api/projects/${plane.project.id}/releases`)).json() as {
      releases: { id: string; status: string; storage: { snapshotBytes: number | null } }[];
    };
    // The snapshot taken while v1 kept serving belongs to the activated release; the failed one kept none.
    expect(releases.releases.find((r) => r.id === v2)?.storage.snapshotBytes).toBeGreaterThan(0);
  }, 120_000);
});

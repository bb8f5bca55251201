// A canary candidate would be a second writer to a journaled database, so a project
// with point-in-time recovery enabled refuses canary deploys (requested or configured) during verify,
// before the baseline is stopped, snapshotted or migrated; the baseline keeps serving.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { packCandidate, quickPolicy, startCanaryPlane, type CanaryPlane } from './support.js';

let p: CanaryPlane;
let host: string;
let baselineId: string;
let baselineAppId: string | undefined;

beforeAll(async () => {
  p = await startCanaryPlane();
  host = `${p.project.slug}.localhost:${p.port}`;
  const first = await p.upload(await packCandidate(p.dir, 1, 'ok'));
  expect((await p.release(first.releaseId)).status).toBe('active');
  baselineId = first.releaseId;
  baselineAppId = p.plane.releases.current(p.project.id)?.id;
  expect(baselineAppId).toBeDefined();
  const enable = await p.plane.app.inject({
    method: 'POST',
    url: `/api/projects/${p.project.id}/recovery`,
    headers: p.owner.headers(),
    payload: { enabled: true },
  });
  expect(enable.statusCode, enable.body).toBe(201);
}, 120_000);

afterAll(async () => {
  await p?.close();
});

async function expectBaselineUntouched(): Promise<void> {
  expect(await p.activeReleaseId()).toBe(baselineId);
  const running = p.plane.releases.current(p.project.id);
  expect(running?.releaseId).toBe(baselineId);
  expect(running?.id).toBe(baselineAppId); // the same app instance: never stopped or restarted
  expect(running?.exited).toBeNull();
  const res = await request(`${p.url}/`, { headers: { host } });
  expect(res.statusCode).toBe(200);
  expect(((await res.body.json()) as { version: number }).version).toBe(1);
}

describe('canary with point-in-time recovery enabled', () => {
  it('refuses svc deploy --canary with SVC_CANARY_RECOVERY_ENABLED before the baseline is touched', async () => {
    const up = await p.upload(await packCandidate(p.dir, 2, 'ok'), { canary: true });
    const release = await p.release(up.releaseId);
    expect(release.status).toBe('failed');
    expect(release.failure?.code).toBe('SVC_CANARY_RECOVERY_ENABLED');
    const run = (await p.report()).runs[0]!;
    expect(run).toMatchObject({ releaseId: up.releaseId, baselineReleaseId: baselineId, state: 'rejected', failure: { code: 'SVC_CANARY_RECOVERY_ENABLED' } });
    expect(run.stages).toEqual([]);
    await expectBaselineUntouched();
  }, 60_000);

  it('refuses a deploy whose svc.deploy.json configures a canary policy', async () => {
    const up = await p.upload(await packCandidate(p.dir, 3, 'ok', quickPolicy()));
    const release = await p.release(up.releaseId);
    expect(release.status).toBe('failed');
    expect(release.failure?.code).toBe('SVC_CANARY_RECOVERY_ENABLED');
    expect((await p.report()).runs[0]).toMatchObject({ releaseId: up.releaseId, state: 'rejected' });
    await expectBaselineUntouched();
  }, 60_000);
});

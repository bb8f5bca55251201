// GET /api/orgs/:id/usage: a workspace's usage is the sum of its projects' metered ingress, with
// forecasts against the workspace quotas; other organizations' projects never count.
import { afterEach, describe, expect, it } from 'vitest';
import { emptyHistogram } from '../../../src/ingress/latency-histogram.js';
import { createMetricsStore } from '../../../src/ingress/metrics-store.js';
import { sumObservations } from '../../../src/ops/usage/workspace-usage.js';
import { createProject, personalOrg, register, startHarness, START, type Harness } from '../../platform/harness.js';

const MIN = 60_000;
const ENV = ['SVC_WORKSPACE_MONTHLY_REQUESTS'] as const;

describe('sumObservations', () => {
  it('adds observations point by point and keeps time order', () => {
    expect(
      sumObservations([
        [
          { t: 2, requests: 1, bytes: 10 },
          { t: 1, requests: 2, bytes: 20 },
        ],
        [{ t: 2, requests: 3, bytes: 30 }],
        [],
      ]),
    ).toEqual([
      { t: 1, requests: 2, bytes: 20 },
      { t: 2, requests: 4, bytes: 40 },
    ]);
    expect(sumObservations([])).toEqual([]);
  });
});

describe('workspace usage route', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    for (const k of ENV) delete process.env[k];
    await h?.close();
    h = undefined;
  });

  it('sums the workspace’s projects, forecasts against the workspace quota, and refuses outsiders', async () => {
    process.env.SVC_WORKSPACE_MONTHLY_REQUESTS = '2000';
    h = await startHarness({ registration: 'public' }); // clock at 2026-03-01T12:00Z
    const owner = await register(h.app, 'owner@example.com');
    const stranger = await register(h.app, 'stranger@example.com');
    const org = await personalOrg(h.app, owner);
    const a = await createProject(h.app, owner, { name: 'A', slug: 'app-a' });
    const b = await createProject(h.app, owner, { name: 'B', slug: 'app-b' });
    const elsewhere = await createProject(h.app, stranger, { name: 'C', slug: 'app-c' });
    const store = createMetricsStore(h.plane.db);
    const delta = (projectId: string, t: number, requests: number, bytes: number) => ({
      projectId,
      releaseId: 'r1',
      bucket: t,
      requests,
      errors: 0,
      platform: 0,
      clientErrors: 0,
      aborted: 0,
      bytes,
      latencySumMs: 0,
      histogram: emptyHistogram(),
    });
    store.write([
      ...Array.from({ length: 90 }, (_, i) => delta(a.id, START - (90 - i) * MIN, 10, 1000)),
      ...Array.from({ length: 90 }, (_, i) => delta(b.id, START - (90 - i) * MIN, 5, 500)),
      ...Array.from({ length: 90 }, (_, i) => delta(elsewhere.id, START - (90 - i) * MIN, 99, 9900)),
    ]);

    const res = await h.app.inject({ method: 'GET', url: `/api/orgs/${org}/usage`, headers: owner.headers() });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.organizationId).toBe(org);
    expect(body.usage).toEqual({
      requests: 1350,
      transferBytes: 135_000,
      period: { start: Date.UTC(2026, 2, 1), end: Date.UTC(2026, 3, 1) },
      quota: { requests: 2000, transferBytes: null },
    });
    // Oldest first; both projects were created at the same (manual) clock time, so compare by slug.
    expect([...body.projects].sort((x: { slug: string }, y: { slug: string }) => x.slug.localeCompare(y.slug))).toEqual([
      { projectId: a.id, slug: 'app-a', requests: 900, transferBytes: 90_000 },
      { projectId: b.id, slug: 'app-b', requests: 450, transferBytes: 45_000 },
    ]);
    expect(body.truncated).toBe(false);
    // 15 requests a minute over 90 minutes: 900 an hour; 2000 − 1350 = 650 left → exhausted in 650/15 minutes.
    expect(body.forecast.requests).toMatchObject({ status: 'ok', observationMs: 90 * MIN, averageRatePerHour: 900, warning: true });
    expect(body.forecast.requests.estimatedExhaustionAt).toBeCloseTo(START + (650 / 15) * MIN, -3);

    const outsider = await h.app.inject({ method: 'GET', url: `/api/orgs/${org}/usage`, headers: stranger.headers() });
    expect(outsider.json().error.code).toBe('SVC_ORG_NOT_FOUND');
    expect((await h.app.inject({ method: 'GET', url: `/api/orgs/${org}/usage` })).statusCode).toBe(401);
  });
});

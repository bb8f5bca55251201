// GET /api/projects/:id/usage on a real control plane: usage written through the ingress
// metrics store on the control database, read back through plane.ingress.metrics.
import { afterEach, describe, expect, it } from 'vitest';
import { emptyHistogram } from '../../../src/ingress/latency-histogram.js';
import { createMetricsStore } from '../../../src/ingress/metrics-store.js';
import { createProject, register, startHarness, START, type Harness } from '../../platform/harness.js';

const MIN = 60_000;
const ENV = ['SVC_PROJECT_MONTHLY_REQUESTS', 'SVC_PROJECT_MONTHLY_TRANSFER_BYTES'] as const;

describe('usage route', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    for (const k of ENV) delete process.env[k];
    await h?.close();
    h = undefined;
  });

  it('returns this month’s usage with forecasts and quota thresholds; anonymous requests are refused', async () => {
    process.env.SVC_PROJECT_MONTHLY_REQUESTS = '1000';
    h = await startHarness(); // clock at 2026-03-01T12:00Z
    const owner = await register(h.app, 'owner@example.com');
    const project = await createProject(h.app, owner, { name: 'Shop', slug: 'shop' });
    const store = createMetricsStore(h.plane.db);
    const delta = (t: number, requests: number, bytes: number) => ({
      projectId: project.id,
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
    // 90 minutes of traffic before now, plus traffic of last month that must not count.
    store.write([...Array.from({ length: 90 }, (_, i) => delta(START - (90 - i) * MIN, 10, 1000)), delta(START - 13 * 60 * MIN, 5000, 5000)]);

    const res = await h.app.inject({ method: 'GET', url: `/api/projects/${project.id}/usage`, headers: owner.headers() });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.usage).toEqual({
      requests: 900,
      transferBytes: 90_000,
      period: { start: Date.UTC(2026, 2, 1), end: Date.UTC(2026, 3, 1) },
      quota: { requests: 1000, transferBytes: null },
    });
    expect(body.forecast.requests).toMatchObject({
      status: 'ok',
      observationMs: 90 * MIN,
      averageRatePerHour: 600,
      projectedPeriodTotal: 900 + 600 * 732,
      warning: true,
      estimatedExhaustionAt: START + 10 * MIN,
    });
    expect(body.forecast.transferBytes).toMatchObject({ status: 'ok', warning: false, estimatedExhaustionAt: null });

    const anonymous = await h.app.inject({ method: 'GET', url: `/api/projects/${project.id}/usage` });
    expect(anonymous.statusCode).toBe(401);
  });

  it('reports insufficient evidence with 30 minutes of data', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const project = await createProject(h.app, owner, { name: 'Shop', slug: 'shop' });
    const store = createMetricsStore(h.plane.db);
    store.write(
      Array.from({ length: 30 }, (_, i) => ({
        projectId: project.id,
        releaseId: 'r1',
        bucket: START - (30 - i) * MIN,
        requests: 1,
        errors: 0,
        platform: 0,
        clientErrors: 0,
        aborted: 0,
        bytes: 1,
        latencySumMs: 0,
        histogram: emptyHistogram(),
      })),
    );
    const body = (await h.app.inject({ method: 'GET', url: `/api/projects/${project.id}/usage`, headers: owner.headers() })).json();
    expect(body.forecast.requests).toMatchObject({
      status: 'insufficient-evidence',
      observationMs: 30 * MIN,
      projectedPeriodTotal: 30,
      estimatedExhaustionAt: null,
      warning: false,
    });
  });
});

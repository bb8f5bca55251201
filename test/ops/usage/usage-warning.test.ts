// Forecast usage warnings as a monitor source on a real control plane: ingress metrics written to
// the control database, read back through plane.ingress.metrics, forecast, alerted.
import { afterEach, describe, expect, it } from 'vitest';
import { sequentialIds } from '../../../src/core/ids.js';
import { emptyHistogram } from '../../../src/ingress/latency-histogram.js';
import { createMetricsStore } from '../../../src/ingress/metrics-store.js';
import type { OperationalAlert } from '../../../src/ops/monitor/incident-store.js';
import { createOperationsMonitor } from '../../../src/ops/monitor/operations-monitor.js';
import { usageWarningSource } from '../../../src/ops/monitor/usage-warning-source.js';
import { createProject, register, startHarness, START, type Harness } from '../../platform/harness.js';

const MIN = 60_000;

describe('usage.warning monitor source', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('with 30 minutes of data: insufficient evidence, yet the threshold on actual usage warns; resolves in the next period', async () => {
    h = await startHarness(); // 2026-03-01T12:00Z
    const owner = await register(h.app, 'owner@example.com');
    const heavy = await createProject(h.app, owner, { name: 'Heavy', slug: 'heavy' });
    const light = await createProject(h.app, owner, { name: 'Light', slug: 'light' });
    const store = createMetricsStore(h.plane.db);
    const delta = (projectId: string, t: number, requests: number) => ({
      projectId,
      releaseId: 'r1',
      bucket: t,
      requests,
      errors: 0,
      platform: 0,
      clientErrors: 0,
      aborted: 0,
      bytes: requests * 10,
      latencySumMs: 0,
      histogram: emptyHistogram(),
    });
    // heavy: 90 requests in 30 minutes (≥ 80% of 100 already); light: 30 requests (a projection would exceed, but there is no evidence yet).
    store.write([
      ...Array.from({ length: 30 }, (_, i) => delta(heavy.id, START - (30 - i) * MIN, 3)),
      ...Array.from({ length: 30 }, (_, i) => delta(light.id, START - (30 - i) * MIN, 1)),
    ]);
    const sent: OperationalAlert[] = [];
    const monitor = createOperationsMonitor({
      db: h.plane.db,
      clock: h.clock,
      ids: sequentialIds(),
      intervalMs: false,
      usageWarningPercent: 80,
      notify: async (a) => void sent.push(a),
      sources: [usageWarningSource(h.plane.ingress.metrics, { quota: { requests: 100 }, warningPercent: 80 })],
    });
    expect(await monitor.runOnce()).toMatchObject({ opened: 1, delivered: 1 });
    expect(sent[0]).toMatchObject({
      kind: 'usage.warning',
      projectId: heavy.id,
      transition: 'open',
      details: { quantity: 'requests', used: 90, quota: 100, warningPercent: 80, status: 'insufficient-evidence', projectedPeriodTotal: 90 },
    });
    expect(await monitor.runOnce()).toMatchObject({ opened: 0, delivered: 0 });
    h.clock.advance(31 * 24 * 60 * MIN); // April: a new billing period with no usage yet
    expect(await monitor.runOnce()).toMatchObject({ resolved: 1, delivered: 1 });
    expect(sent.map((a) => [a.projectId, a.transition])).toEqual([
      [heavy.id, 'open'],
      [heavy.id, 'resolve'],
    ]);
  });
});

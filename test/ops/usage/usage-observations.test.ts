import { describe, expect, it } from 'vitest';
import { windowRange, type MetricsWindow } from '../../../src/ingress/metrics-series.js';
import { usageObservations, type UsageSeries } from '../../../src/ops/usage/usage-observations.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

/** A zero-filled window series ending at `now` with one request and `bytes` per minute folded into its steps. */
function series(window: MetricsWindow, now: number, perMinute: (t: number) => number): UsageSeries {
  const { from, to, stepMs } = windowRange(window, now);
  const points = [];
  for (let t = from; t < to; t += stepMs) {
    let requests = 0;
    for (let m = t; m < t + stepMs && m <= now; m += MIN) requests += perMinute(m);
    points.push({ t, requests, bytes: requests * 10 });
  }
  return { from, to, stepMs, series: points };
}

describe('usageObservations', () => {
  it('merges the three windows without double counting and keeps minute resolution for the last hour', () => {
    const now = Date.UTC(2026, 10, 20, 13, 37, 30);
    const periodStart = Date.UTC(2026, 10, 1);
    const one = () => 1;
    const obs = usageObservations({ month: series('30d', now, one), day: series('24h', now, one), hour: series('1h', now, one) }, periodStart);
    // Every minute from the first full 6-hour step inside the month up to now, counted exactly once.
    const first = obs[0]!.t;
    expect(first).toBeGreaterThanOrEqual(periodStart);
    const expected = Math.floor((now - first) / MIN) + 1;
    expect(obs.reduce((s, o) => s + o.requests, 0)).toBe(expected);
    expect(obs.reduce((s, o) => s + o.bytes, 0)).toBe(expected * 10);
    // Strictly increasing, non-overlapping starts; the last hour is minute-spaced.
    for (let i = 1; i < obs.length; i++) expect(obs[i]!.t).toBeGreaterThan(obs[i - 1]!.t);
    const recent = obs.filter((o) => o.t >= now - 50 * MIN);
    expect(recent.every((o, i) => i === 0 || o.t - recent[i - 1]!.t === MIN)).toBe(true);
  });

  it('drops observations before the period start', () => {
    const now = Date.UTC(2026, 10, 1, 2, 0);
    const periodStart = Date.UTC(2026, 10, 1);
    const one = () => 1;
    const obs = usageObservations({ month: series('30d', now, one), day: series('24h', now, one), hour: series('1h', now, one) }, periodStart);
    expect(obs.every((o) => o.t >= periodStart)).toBe(true);
    expect(obs.reduce((s, o) => s + o.requests, 0)).toBe(2 * 60 + 1);
    expect(now - obs[0]!.t).toBe(2 * HOUR);
  });
});

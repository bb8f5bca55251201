import { describe, expect, it } from 'vitest';
import { FORECAST_MIN_EVIDENCE_MS, forecastUsage, type UsageObservation } from '../../../src/ops/usage/forecast-usage.js';
import { billingPeriod } from '../../../src/ops/usage/usage-observations.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const START = Date.UTC(2026, 10, 1); // November 2026 (30 days)
const END = Date.UTC(2026, 11, 1);

/** One observation per minute over `minutes` minutes ending at `now`, each with `requests` and `bytes`. */
function perMinute(now: number, minutes: number, requests: number, bytes: number): UsageObservation[] {
  return Array.from({ length: minutes }, (_, i) => ({ t: now - (minutes - i) * MIN, requests, bytes }));
}

describe('forecastUsage', () => {
  it('reports insufficient evidence with 30 minutes of data and does not extrapolate', () => {
    const now = START + 10 * 24 * HOUR;
    const f = forecastUsage(perMinute(now, 30, 10, 1000), { periodStart: START, periodEnd: END, now, quota: { requests: 1_000_000, transferBytes: 1e12 } });
    expect(f.requests.status).toBe('insufficient-evidence');
    expect(f.requests.observationMs).toBe(30 * MIN);
    expect(f.requests.averageRatePerHour).toBe(600);
    expect(f.requests.projectedPeriodTotal).toBe(300);
    expect(f.requests.estimatedExhaustionAt).toBeNull();
    expect(f.requests.warning).toBe(false);
    expect(f.transferBytes.status).toBe('insufficient-evidence');
    expect(f.transferBytes.projectedPeriodTotal).toBe(30_000);
  });

  it('still warns and reports exhaustion under one hour when actual usage crossed the thresholds', () => {
    const now = START + 5 * HOUR;
    const obs = perMinute(now, 30, 10, 0); // 300 requests, crossing 250 at minute 25
    const f = forecastUsage(obs, { periodStart: START, periodEnd: END, now, quota: { requests: 250, transferBytes: 10 }, warningPercent: 80 });
    expect(f.requests.status).toBe('insufficient-evidence');
    expect(f.requests.warning).toBe(true);
    expect(f.requests.estimatedExhaustionAt).toBe(obs[24]!.t);
    // No bytes at all: no evidence, no warning, no exhaustion.
    expect(f.transferBytes).toMatchObject({
      status: 'insufficient-evidence',
      observationMs: 0,
      averageRatePerHour: 0,
      projectedPeriodTotal: 0,
      estimatedExhaustionAt: null,
      warning: false,
    });
    // Warning threshold reached by actual usage, quota not yet reached.
    const w = forecastUsage(obs, { periodStart: START, periodEnd: END, now, quota: { requests: 350 }, warningPercent: 80 });
    expect(w.requests).toMatchObject({ status: 'insufficient-evidence', warning: true, estimatedExhaustionAt: null });
    const none = forecastUsage(obs, { periodStart: START, periodEnd: END, now, quota: { requests: 400 }, warningPercent: 80 });
    expect(none.requests.warning).toBe(false);
  });

  it('forecasts from one hour of data: rate, projection and exhaustion inside the period', () => {
    const now = START + 24 * HOUR;
    const obs = perMinute(now, 60, 100, 0); // 6000 requests in one hour
    const f = forecastUsage(obs, { periodStart: START, periodEnd: END, now, quota: { requests: 60_000 } });
    expect(f.requests.status).toBe('ok');
    expect(f.requests.observationMs).toBe(FORECAST_MIN_EVIDENCE_MS);
    expect(f.requests.averageRatePerHour).toBe(6000);
    expect(f.requests.projectedPeriodTotal).toBe(6000 + 6000 * 29 * 24);
    expect(f.requests.estimatedExhaustionAt).toBe(now + 9 * HOUR);
    expect(f.requests.warning).toBe(true); // projected far above 80 %
  });

  it('does not predict exhaustion after the period end and does not warn on a low projection', () => {
    const now = START + 24 * HOUR;
    const obs = perMinute(now, 120, 1, 0); // 60 per hour → 120 + 60*29*24 = 41,880 by the end
    const f = forecastUsage(obs, { periodStart: START, periodEnd: END, now, quota: { requests: 100_000 } });
    expect(f.requests.status).toBe('ok');
    expect(f.requests.projectedPeriodTotal).toBe(41_880);
    expect(f.requests.estimatedExhaustionAt).toBeNull();
    expect(f.requests.warning).toBe(false);
    const tight = forecastUsage(obs, { periodStart: START, periodEnd: END, now, quota: { requests: 50_000 }, warningPercent: 80 });
    expect(tight.requests.warning).toBe(true); // 41,880 ≥ 40,000
    expect(tight.requests.estimatedExhaustionAt).toBeNull();
  });

  it('without a quota never warns or predicts exhaustion', () => {
    const now = START + 24 * HOUR;
    const f = forecastUsage(perMinute(now, 120, 1000, 1000), { periodStart: START, periodEnd: END, now });
    expect(f.requests).toMatchObject({ status: 'ok', warning: false, estimatedExhaustionAt: null });
    expect(f.transferBytes).toMatchObject({ status: 'ok', warning: false, estimatedExhaustionAt: null });
  });

  it('ignores observations before the period, in the future, and measures evidence from the first usage', () => {
    const now = START + 30 * MIN;
    const obs: UsageObservation[] = [
      { t: START - 2 * HOUR, requests: 5000, bytes: 5000 }, // last month
      { t: START - MIN, requests: 1, bytes: 1 },
      { t: START, requests: 0, bytes: 0 },
      { t: START + 10 * MIN, requests: 20, bytes: 0 },
      { t: START + 20 * MIN, requests: 0, bytes: 40 },
      { t: now + MIN, requests: 999, bytes: 999 }, // future
    ];
    const f = forecastUsage(obs, { periodStart: START, periodEnd: END, now });
    expect(f.requests).toMatchObject({ status: 'insufficient-evidence', observationMs: 20 * MIN, projectedPeriodTotal: 20 });
    expect(f.transferBytes).toMatchObject({ observationMs: 10 * MIN, projectedPeriodTotal: 40 });
  });

  it('exhaustion already reached applies with evidence too, at the crossing point', () => {
    const now = START + 3 * HOUR;
    const obs = perMinute(now, 180, 10, 0); // 1800 requests, crossing 1000 at minute 100
    const f = forecastUsage(obs, { periodStart: START, periodEnd: END, now, quota: { requests: 1000 } });
    expect(f.requests.status).toBe('ok');
    expect(f.requests.estimatedExhaustionAt).toBe(obs[99]!.t);
    expect(f.requests.warning).toBe(true);
  });

  it('is order-independent', () => {
    const now = START + 3 * HOUR;
    const obs = perMinute(now, 180, 10, 0);
    const opts = { periodStart: START, periodEnd: END, now, quota: { requests: 1000 } };
    expect(forecastUsage([...obs].reverse(), opts)).toEqual(forecastUsage(obs, opts));
  });
});

describe('billingPeriod', () => {
  it('is the UTC calendar month, including December and leap February', () => {
    expect(billingPeriod(Date.UTC(2026, 11, 31, 23, 59))).toEqual({ start: Date.UTC(2026, 11, 1), end: Date.UTC(2027, 0, 1) });
    const feb = billingPeriod(Date.UTC(2028, 1, 29, 12));
    expect(feb.end - feb.start).toBe(29 * 24 * HOUR);
  });
});

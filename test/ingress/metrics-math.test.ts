// Pure metrics math: latency bins, quantiles, window aggregation. No disk, no clock.
import { describe, expect, it } from 'vitest';
import {
  addHistogram,
  binIndex,
  binUpperBound,
  decodeHistogram,
  emptyHistogram,
  encodeHistogram,
  histogramQuantile,
  LATENCY_BINS,
} from '../../src/ingress/latency-histogram.js';
import { aggregateSeries, windowRange, type MetricsBucket } from '../../src/ingress/metrics-series.js';

describe('latency histogram', () => {
  it('puts each latency in the bin whose bounds contain it', () => {
    for (const ms of [0, 0.1, 0.25, 0.26, 1, 3.7, 12, 250, 999, 5_000, 60_000]) {
      const i = binIndex(ms);
      expect(ms, `${ms}`).toBeLessThanOrEqual(binUpperBound(i));
      if (i > 0) expect(ms).toBeGreaterThan(binUpperBound(i - 1));
    }
    expect(binIndex(10 * 60_000)).toBe(LATENCY_BINS - 1);
    expect(binIndex(Number.NaN)).toBe(0);
  });

  it('estimates p50/p95 within one bin width (~19 %)', () => {
    const h = emptyHistogram();
    const samples: number[] = [];
    for (let i = 1; i <= 1000; i++) samples.push(i / 10); // 0.1 … 100 ms uniformly
    for (const s of samples) h[binIndex(s)]!++;
    const p50 = histogramQuantile(h, 0.5)!;
    const p95 = histogramQuantile(h, 0.95)!;
    expect(Math.abs(p50 - 50) / 50).toBeLessThan(0.19);
    expect(Math.abs(p95 - 95) / 95).toBeLessThan(0.19);
    expect(histogramQuantile(emptyHistogram(), 0.5)).toBeNull();
  });

  it('adds histograms and round-trips through the BLOB format', () => {
    const a = emptyHistogram();
    const b = emptyHistogram();
    a[3] = 5;
    b[3] = 2;
    b[70] = 1;
    addHistogram(a, b);
    expect([a[3], a[70]]).toEqual([7, 1]);
    const decoded = decodeHistogram(encodeHistogram(a));
    expect([...decoded]).toEqual([...a]);
    expect([...decodeHistogram(null)]).toEqual([...emptyHistogram()]);
  });
});

function bucket(t: number, requests: number, latencyMs: number, extra: Partial<MetricsBucket> = {}): MetricsBucket {
  const histogram = emptyHistogram();
  histogram[binIndex(latencyMs)] = requests;
  return {
    bucket: t,
    requests,
    errors: 0,
    platform: 0,
    clientErrors: 0,
    aborted: 0,
    bytes: requests * 100,
    latencySumMs: requests * latencyMs,
    histogram,
    ...extra,
  };
}

describe('aggregateSeries', () => {
  const now = Date.parse('2026-03-01T12:30:30Z');

  it('covers 1h with 60 one-minute points ending with the current minute, zero-filled', () => {
    const range = windowRange('1h', now);
    expect(range.to).toBe(Date.parse('2026-03-01T12:31:00Z'));
    expect(range.from).toBe(Date.parse('2026-03-01T11:31:00Z'));
    const report = aggregateSeries('1h', now, [
      bucket(Date.parse('2026-03-01T12:30:00Z'), 10, 5, { errors: 2, clientErrors: 1, aborted: 1 }),
      bucket(Date.parse('2026-03-01T10:00:00Z'), 99, 5),
    ]);
    expect(report.series).toHaveLength(60);
    expect(report.series.at(-1)).toMatchObject({ t: Date.parse('2026-03-01T12:30:00Z'), requests: 10, errors: 2, bytes: 1000 });
    expect(report.series[0]).toMatchObject({ requests: 0, p50: null, p95: null });
    expect(report.totals).toMatchObject({ requests: 10, errors: 2, clientErrors: 1, aborted: 1, bytes: 1000, errorRate: 0.2 });
  });

  it("keeps svc's own answers apart from the app's errors; the error rate is over what the app answered", () => {
    const t = Date.parse('2026-03-01T12:30:00Z');
    const report = aggregateSeries('1h', now, [bucket(t, 10, 5, { errors: 1, platform: 5 }), bucket(t - 60_000, 4, 5, { platform: 4 })]);
    expect(report.series.at(-1)).toMatchObject({ requests: 10, errors: 1, platform: 5 });
    expect(report.series.at(-2)).toMatchObject({ requests: 4, errors: 0, platform: 4 });
    expect(report.totals).toMatchObject({ requests: 14, errors: 1, platform: 9, errorRate: 1 / 5 });
    expect(aggregateSeries('1h', now, [bucket(t, 3, 5, { platform: 3 })]).totals.errorRate).toBe(0);
  });

  it('merges histograms across buckets for window percentiles', () => {
    const t = Date.parse('2026-03-01T12:00:00Z');
    const report = aggregateSeries('24h', now, [bucket(t, 90, 10), bucket(t + 60_000, 10, 1_000)]);
    expect(report.series).toHaveLength(144);
    expect(report.stepMs).toBe(600_000);
    const point = report.series.find((p) => p.t === t)!;
    expect(point.requests).toBe(100);
    expect(point.p50!).toBeGreaterThan(8);
    expect(point.p50!).toBeLessThanOrEqual(10.5);
    expect(point.p95!).toBeGreaterThan(800);
  });

  it('uses hour points for 7d and 6-hour points for 30d', () => {
    expect(aggregateSeries('7d', now, []).series).toHaveLength(168);
    const month = aggregateSeries('30d', now, [bucket(Date.parse('2026-02-10T07:00:00Z'), 3, 2)]);
    expect(month.series).toHaveLength(120);
    expect(month.series.find((p) => p.requests === 3)?.t).toBe(Date.parse('2026-02-10T06:00:00Z'));
  });
});

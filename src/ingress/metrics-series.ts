// Pure aggregation of stored metric buckets into a console series for one window.
import { addHistogram, emptyHistogram, histogramQuantile } from './latency-histogram.js';

export const metricsWindowValues = ['1h', '24h', '7d', '30d'] as const;
/** Ingress performance windows: 1 hour through 30 days. */
export type MetricsWindow = (typeof metricsWindowValues)[number];

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Span, point width and source resolution of each window. */
export const windowPlans: Record<MetricsWindow, { spanMs: number; stepMs: number; resolution: 'minute' | 'hour' }> = {
  '1h': { spanMs: HOUR, stepMs: MINUTE, resolution: 'minute' },
  '24h': { spanMs: 24 * HOUR, stepMs: 10 * MINUTE, resolution: 'minute' },
  '7d': { spanMs: 7 * 24 * HOUR, stepMs: HOUR, resolution: 'hour' },
  '30d': { spanMs: 30 * 24 * HOUR, stepMs: 6 * HOUR, resolution: 'hour' },
};

/** One stored bucket (minute or hour) of one project release. */
export interface MetricsBucket {
  bucket: number;
  requests: number;
  /** The app's 5xx and broken streams. */
  errors: number;
  /** Answers svc's ingress gave itself (no active release, hold ran out or full); not in `errors`. */
  platform: number;
  clientErrors: number;
  aborted: number;
  bytes: number;
  latencySumMs: number;
  histogram: Uint32Array;
}

export interface MetricsPoint {
  /** Start of the point (ms). */
  t: number;
  requests: number;
  /** The app's 5xx responses, its 502 (no answer) and broken streams. */
  errors: number;
  /** svc's own answers (503 no active release, held request not served). */
  platform: number;
  p50: number | null;
  p95: number | null;
  bytes: number;
}

export interface MetricsTotals {
  requests: number;
  errors: number;
  platform: number;
  clientErrors: number;
  aborted: number;
  bytes: number;
  errorRate: number;
  p50: number | null;
  p95: number | null;
}

export interface MetricsReport {
  window: MetricsWindow;
  stepMs: number;
  from: number;
  to: number;
  series: MetricsPoint[];
  totals: MetricsTotals;
}

/** `[from, to)` of a window ending with the step that contains `now` (steps aligned to the epoch, i.e. UTC). */
export function windowRange(window: MetricsWindow, now: number): { from: number; to: number; stepMs: number; resolution: 'minute' | 'hour' } {
  const plan = windowPlans[window];
  const to = Math.floor(now / plan.stepMs) * plan.stepMs + plan.stepMs;
  return { from: to - plan.spanMs, to, stepMs: plan.stepMs, resolution: plan.resolution };
}

/** Fold buckets into zero-filled points of the window plus totals (percentiles from merged histograms). */
export function aggregateSeries(window: MetricsWindow, now: number, buckets: Iterable<MetricsBucket>): MetricsReport {
  const { from, to, stepMs } = windowRange(window, now);
  const points = Math.round((to - from) / stepMs);
  const histograms: Uint32Array[] = [];
  const series: MetricsPoint[] = [];
  for (let i = 0; i < points; i++) {
    series.push({ t: from + i * stepMs, requests: 0, errors: 0, platform: 0, p50: null, p95: null, bytes: 0 });
    histograms.push(emptyHistogram());
  }
  const all = emptyHistogram();
  const totals: MetricsTotals = { requests: 0, errors: 0, platform: 0, clientErrors: 0, aborted: 0, bytes: 0, errorRate: 0, p50: null, p95: null };
  for (const b of buckets) {
    if (b.bucket < from || b.bucket >= to) continue;
    const i = Math.floor((b.bucket - from) / stepMs);
    const point = series[i]!;
    point.requests += b.requests;
    point.errors += b.errors;
    point.platform += b.platform;
    point.bytes += b.bytes;
    addHistogram(histograms[i]!, b.histogram);
    addHistogram(all, b.histogram);
    totals.requests += b.requests;
    totals.errors += b.errors;
    totals.platform += b.platform;
    totals.clientErrors += b.clientErrors;
    totals.aborted += b.aborted;
    totals.bytes += b.bytes;
  }
  for (let i = 0; i < points; i++) {
    series[i]!.p50 = histogramQuantile(histograms[i]!, 0.5);
    series[i]!.p95 = histogramQuantile(histograms[i]!, 0.95);
  }
  totals.p50 = histogramQuantile(all, 0.5);
  totals.p95 = histogramQuantile(all, 0.95);
  // The app's error rate: over the requests it was sent, so a stretch with no release does not read as app failures.
  const served = totals.requests - totals.platform;
  totals.errorRate = served === 0 ? 0 : totals.errors / served;
  return { window, stepMs, from, to, series, totals };
}

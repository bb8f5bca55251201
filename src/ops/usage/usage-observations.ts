// Pure: the billing period and the finest observations the ingress metric windows offer for it.
import type { UsageObservation } from './forecast-usage.js';

/** The parts of an ingress metrics report the forecast reads (`plane.ingress.metrics.query`). */
export interface UsageSeries {
  from: number;
  to: number;
  stepMs: number;
  series: readonly { t: number; requests: number; bytes: number }[];
}

/** The UTC calendar month containing `now`: `[start, end)` in ms. */
export function billingPeriod(now: number): { start: number; end: number } {
  const d = new Date(now);
  return { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

/**
 * Merge the 30d (6-hour), 24h (10-minute) and 1h (1-minute) windows into non-overlapping
 * observations from `periodStart`: each coarser window is cut at the first of its own step
 * boundaries inside the next finer window, so no request is counted twice and recent data
 * keeps minute resolution (the one-hour evidence rule needs it).
 */
export function usageObservations(windows: { month: UsageSeries; day: UsageSeries; hour: UsageSeries }, periodStart: number): UsageObservation[] {
  const ceilTo = (value: number, step: number) => Math.ceil(value / step) * step;
  const cutDay = ceilTo(windows.day.from, windows.month.stepMs);
  const cutHour = ceilTo(windows.hour.from, windows.day.stepMs);
  const pick = (s: UsageSeries, from: number, to: number) =>
    s.series.filter((p) => p.t >= from && p.t < to).map((p) => ({ t: p.t, requests: p.requests, bytes: p.bytes }));
  return [...pick(windows.month, windows.month.from, cutDay), ...pick(windows.day, cutDay, cutHour), ...pick(windows.hour, cutHour, Infinity)].filter(
    (o) => o.t >= periodStart,
  );
}

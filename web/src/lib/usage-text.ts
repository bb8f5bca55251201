// Text of the usage cards and the runner node table, kept apart from components so tests can
// import it without a DOM. Pure.
import type { UsageResponse } from '../../../src/ops/contract.js';
import { formatTime } from './format.js';

type Forecast = UsageResponse['forecast']['requests'];

/** Whole counts as plain digits ("1234"); forecasts are fractional, so rounded. */
export function formatCount(n: number): string {
  return String(Math.round(n));
}

/** "no quota" or the formatted quota. */
export function quotaText(quota: number | null, format: (n: number) => string): string {
  return quota === null ? 'no quota' : format(quota);
}

/** "insufficient evidence (under an hour of data)" or "projected 1234 this month". */
export function forecastText(forecast: Forecast, format: (n: number) => string): string {
  if (forecast.status === 'insufficient-evidence') return 'insufficient evidence (under an hour of data)';
  return `projected ${format(forecast.projectedPeriodTotal)} this month`;
}

/** Epoch ms of the estimated exhaustion → local time, or "—" when none is expected. */
export function exhaustionText(at: number | null): string {
  return at === null || !Number.isFinite(at) ? '—' : formatTime(new Date(at).toISOString());
}

/** Node labels as "disk=ssd, os=linux" (sorted by key), or "—". */
export function labelsText(labels: Record<string, string>): string {
  const entries = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? '—' : entries.map(([k, v]) => `${k}=${v}`).join(', ');
}

// Text of the usage cards and the runner node table, kept apart from components so tests can
// import it without a DOM. Pure.
import { formatTime } from './format.js';

// Counts, quotas and forecasts read the same here and in `svc usage`.
export { forecastText, formatCount, quotaText } from '../../../src/core/usage-text.js';

/** Epoch ms of the estimated exhaustion → local time, or "—" when none is expected. */
export function exhaustionText(at: number | null): string {
  return at === null || !Number.isFinite(at) ? '—' : formatTime(new Date(at).toISOString());
}

/** Node labels as "disk=ssd, os=linux" (sorted by key), or "—". */
export function labelsText(labels: Record<string, string>): string {
  const entries = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? '—' : entries.map(([k, v]) => `${k}=${v}`).join(', ');
}

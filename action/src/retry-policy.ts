// Which failed upload attempts are ambiguous or transient (retry with the same idempotency key)
// and how long to wait. Pure.
import { errorCodes } from '../../src/core/errors.js';

/** What one attempt ended with, short of a success. */
export type FailedAttempt =
  | { kind: 'network'; message: string }
  | { kind: 'response'; status: number; code: string | null; retryAfter: string | undefined };

const TRANSIENT_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

/**
 * Network errors and timeouts (the server may or may not have the upload), 408, 429 and 5xx are
 * retried; so is any code the registry marks retryable (e.g. SVC_PROJECT_LOCKED). Other 4xx are final.
 */
export function shouldRetry(failure: FailedAttempt): boolean {
  if (failure.kind === 'network') return true;
  if (TRANSIENT_STATUSES.has(failure.status) || failure.status >= 500) return true;
  const def = failure.code ? (errorCodes as Record<string, { retryable: boolean } | undefined>)[failure.code] : undefined;
  return def?.retryable === true;
}

/** Delay before attempt `next` (2, 3, …): exponential from `baseMs`, capped at 60 s; Retry-After wins when larger (≤ 120 s). */
export function retryDelayMs(next: number, baseMs: number, retryAfter?: string): number {
  const backoff = Math.min(60_000, baseMs * 2 ** Math.max(0, next - 2));
  const seconds = retryAfter !== undefined && /^\d{1,6}$/.test(retryAfter.trim()) ? Number(retryAfter.trim()) : NaN;
  return Number.isFinite(seconds) ? Math.max(backoff, Math.min(120_000, seconds * 1000)) : backoff;
}

// Which failed upload attempts are ambiguous or transient (retry with the same idempotency key)
// and how long to wait (svc's retry policy, src/core/retry-policy.ts). Pure.
import { errorCodes } from '../../src/core/errors.js';
import { retryDelayMs as policyDelay, type RetryPolicy } from '../../src/core/retry-policy.js';

/** What one attempt ended with, short of a success. */
export type FailedAttempt = { kind: 'network'; message: string } | { kind: 'response'; status: number; code: string | null; retryAfter: string | undefined };

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

/** The upload's policy: exponential from `baseMs`, capped at 60 s, half of it jitter; Retry-After up to 120 s. */
export const uploadRetryPolicy = (baseMs: number): RetryPolicy => ({ baseMs, capMs: 60_000, jitter: 0.5, retryAfterCapMs: 120_000 });

/**
 * Delay before attempt `next` (2, 3, …): exponential from `baseMs`, capped at 60 s; Retry-After
 * (seconds or an HTTP-date) wins when larger (≤ 120 s). `random` 1 (the default) is the full delay.
 */
export function retryDelayMs(next: number, baseMs: number, retryAfter?: string, options: { random?: number; now?: number } = {}): number {
  return policyDelay(uploadRetryPolicy(baseMs), { attempt: next - 1, random: options.random ?? 1, retryAfter, now: options.now ?? Date.now() });
}

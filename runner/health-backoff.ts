// When to probe a starting app's health route next. Probing every few milliseconds made a slow app's
// start-up compete with a stream of requests (and filled its logs); backing off from 100 ms to 1 s
// still notices a fast app within about 100 ms and costs a slow one at most one probe a second.
// Pure: no clock, no I/O. The doubling is svc's retry policy (src/core/retry-policy.ts), without jitter:
// a probe of one app by its own launcher herds nothing.
import { backoffMs } from '../src/core/retry-policy.js';

/** First pause after a failed probe. */
export const HEALTH_FIRST_DELAY_MS = 100;
/** Longest pause between probes. */
export const HEALTH_MAX_DELAY_MS = 1000;

/**
 * Milliseconds to wait after the `attempt`-th failed probe (1-based): 100, 200, 400, 800, then 1000
 * each time; never past the overall deadline (`remainingMs`), so the timeout keeps its meaning.
 */
export function healthCheckDelay(attempt: number, remainingMs: number): number {
  const backoff = backoffMs({ baseMs: HEALTH_FIRST_DELAY_MS, capMs: HEALTH_MAX_DELAY_MS, jitter: 0 }, attempt, 1);
  return Math.max(0, Math.min(backoff, remainingMs));
}

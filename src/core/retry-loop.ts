// The one loop that repeats an attempt under the retry policy (retry-policy.ts). The attempt itself says
// whether its outcome is final or worth another try (and passes on the server's Retry-After); the loop
// counts, waits and gives up. Sleep, randomness and the clock are passed in so tests need not wait.
import { retryDelayMs, type RetryPolicy } from './retry-policy.js';

/** What one attempt ended with: a value, or an error another attempt may cure. Throw for a final failure. */
export type AttemptOutcome<T> = { kind: 'done'; value: T } | { kind: 'retry'; error: Error; retryAfter?: string | null | undefined };

export interface RetryLoopOptions {
  policy: RetryPolicy;
  /** Attempts including the first (at least 1). */
  maxAttempts: number;
  /** Waits; wakes early (without throwing) when `signal` aborts. Default: a timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  now?: () => number;
  /** Passed to `sleep`; the attempt checks it itself (each caller has its own aborted error). */
  signal?: AbortSignal | undefined;
  /** Told before each wait (for a log line). */
  onRetry?: (info: { attempt: number; delayMs: number; error: Error }) => void;
}

/** A timer that resolves early when the signal aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Run `attempt(1)`, `attempt(2)` … until one is done or the attempts run out (then its error is thrown). */
export async function retryLoop<T>(attempt: (n: number) => Promise<AttemptOutcome<T>>, options: RetryLoopOptions): Promise<T> {
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts));
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  for (let n = 1; ; n++) {
    const outcome = await attempt(n);
    if (outcome.kind === 'done') return outcome.value;
    if (n >= maxAttempts) throw outcome.error;
    const delayMs = retryDelayMs(options.policy, { attempt: n, random: random(), retryAfter: outcome.retryAfter, now: now() });
    options.onRetry?.({ attempt: n, delayMs, error: outcome.error });
    await sleep(delayMs, options.signal);
  }
}

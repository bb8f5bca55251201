// svc's one retry policy: exponential backoff from a per-caller base, capped, jittered, and a server's
// Retry-After (delta-seconds or HTTP-date) honoured up to its own cap. Pure: no clock, no randomness of
// its own and nothing Node-only, so the browser runtime client and the durable queues use it as well as
// the HTTP callers.

/** How one caller backs off. */
export interface RetryPolicy {
  /** Delay after the first failure; doubles per further failure. */
  baseMs: number;
  /** Longest backoff. */
  capMs: number;
  /**
   * Share of the delay that is random: 0 keeps the exact doubling (durable queues whose schedule is
   * part of their contract), 1 spreads it over [0, delay]. Default 0.5: never less than half.
   */
  jitter?: number;
  /** Longest wait a Retry-After may ask for (default `capMs`). */
  retryAfterCapMs?: number;
}

/** The moment a retry is decided. */
export interface RetryMoment {
  /** Failures so far: 1 after the first. */
  attempt: number;
  /** Uniform in [0, 1]; 1 gives the full delay, 0 the shortest the jitter allows. */
  random: number;
  /** The answer's Retry-After header, when it had one. */
  retryAfter?: string | null | undefined;
  /** Milliseconds since the epoch; only the HTTP-date form of Retry-After needs it. */
  now: number;
}

const DEFAULT_JITTER = 0.5;

/** Backoff after `attempt` failures: base, 2·base, 4·base … capped, less the random share. */
export function backoffMs(policy: RetryPolicy, attempt: number, random: number): number {
  const exponent = Math.min(Math.max(0, Math.floor(attempt) - 1), 52);
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** exponent);
  const jitter = clamp(policy.jitter ?? DEFAULT_JITTER);
  return Math.max(0, Math.round(ceiling * (1 - jitter * (1 - clamp(random)))));
}

/**
 * Milliseconds a Retry-After value asks to wait: delta-seconds (`120`) or an HTTP-date, counted from
 * `now` (a date in the past is 0). Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date always names a weekday and GMT; anything else Date.parse would guess at.
  if (!/^[A-Za-z]{3}, .+ GMT$/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The wait before the next attempt: the jittered backoff, or the server's Retry-After when longer (capped). */
export function retryDelayMs(policy: RetryPolicy, moment: RetryMoment): number {
  const backoff = backoffMs(policy, moment.attempt, moment.random);
  const asked = parseRetryAfter(moment.retryAfter, moment.now);
  if (asked === undefined) return backoff;
  return Math.max(backoff, Math.min(asked, policy.retryAfterCapMs ?? policy.capMs));
}

function clamp(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 1;
}

// Pure restart policy of the supervisor: exponential backoff with a cap, reset after stable uptime.

export interface BackoffPolicy {
  /** Delay before the first restart of a crash streak. */
  initialMs: number;
  /** Growth per further crash in the streak. */
  factor: number;
  /** Upper bound of any delay. */
  maxMs: number;
  /** An app that ran at least this long before crashing starts a fresh streak. */
  stableAfterMs: number;
}

/** 0.5 s, 1 s, 2 s, … up to 30 s; a minute of uptime resets the streak. */
export const defaultBackoff: BackoffPolicy = { initialMs: 500, factor: 2, maxMs: 30_000, stableAfterMs: 60_000 };

/**
 * Decide the delay before restarting an app that just crashed.
 * `streak` is the number of crashes in a row before this one; `uptimeMs` how long this run lasted.
 */
export function nextRestart(policy: BackoffPolicy, streak: number, uptimeMs: number): { delayMs: number; streak: number } {
  const next = uptimeMs >= policy.stableAfterMs ? 1 : streak + 1;
  const delayMs = Math.min(policy.maxMs, Math.round(policy.initialMs * policy.factor ** Math.min(next - 1, 64)));
  return { delayMs, streak: next };
}

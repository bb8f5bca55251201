/** Reconnect delay policy: exponential with full jitter, capped. */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

/** Delay before reconnect attempt `attempt` (0-based); `random` in [0, 1) is passed in for testability. */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: number): number {
  const ceiling = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt, 30));
  // Half fixed, half jitter: never zero, and many clients restarting together spread out.
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}

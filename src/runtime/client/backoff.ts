// Reconnect delay of the live client: svc's one retry policy (src/core/retry-policy.ts, pure and
// browser-safe) under the client's own names.
import { backoffMs } from '../../core/retry-policy.js';

/** Reconnect delay policy: exponential, capped, half of it jitter. */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

/** Delay before reconnect attempt `attempt` (0-based); `random` in [0, 1) is passed in for testability. */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: number): number {
  // Half fixed, half jitter: never zero, and many clients restarting together spread out.
  return backoffMs({ baseMs: policy.initialMs, capMs: policy.maxMs, jitter: 0.5 }, attempt + 1, random);
}

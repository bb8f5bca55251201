/** The stored state of a device authorization that a poll decision needs. */
export interface DevicePollState {
  status: 'pending' | 'approved' | 'denied' | 'consumed';
  expiresAt: number;
  lastPollAt: number | null;
  intervalSeconds: number;
}

export type DevicePollOutcome =
  { kind: 'invalid' } | { kind: 'expired' } | { kind: 'denied' } | { kind: 'issue' } | { kind: 'slow_down'; intervalSeconds: number } | { kind: 'pending' };

/** RFC 8628 §3.5 slow_down: the client must add 5 seconds to its interval. */
export const SLOW_DOWN_STEP_SECONDS = 5;

/**
 * Pure decision for one poll of the token endpoint. Consumed codes are invalid (the token is
 * returned exactly once); expiry wins over everything else; an approved code issues at once;
 * a pending code polled sooner than its interval gets slow_down with a longer interval.
 */
export function decideDevicePoll(state: DevicePollState | undefined, now: number): DevicePollOutcome {
  if (!state || state.status === 'consumed') return { kind: 'invalid' };
  if (now >= state.expiresAt) return { kind: 'expired' };
  if (state.status === 'denied') return { kind: 'denied' };
  if (state.status === 'approved') return { kind: 'issue' };
  if (state.lastPollAt !== null && now - state.lastPollAt < state.intervalSeconds * 1000) {
    return { kind: 'slow_down', intervalSeconds: state.intervalSeconds + SLOW_DOWN_STEP_SECONDS };
  }
  return { kind: 'pending' };
}

// Pure decisions of supervision over data (no disk, no clock): what a restarted controller does with
// a fence it finds, how long it waits for a previous lease, and when a supervisor must stop its runtime.
import type { FenceFile } from './fence-file.js';

/** What a controller observed about a fence's processes. `unknown`: could not tell (podman unusable). */
export interface FenceObservation {
  supervisorAlive: boolean;
  runtimeAlive: boolean | 'unknown';
}

/** The next step for a fence. */
export type FenceAction =
  /** The fence belongs to a live supervisor of this controller: nothing to recover. */
  | { action: 'own' }
  /** The previous controller's lease is still valid: its supervisor may still be cleaning up. */
  | { action: 'wait'; ms: number }
  /** The lease expired but something still runs: kill it, then verify again. */
  | { action: 'terminate'; supervisor: boolean; runtime: boolean }
  /** Cleanup is verified: the fence file may be removed. */
  | { action: 'clear' }
  /** Cleanup cannot be verified (unreadable fence, runtime state unknown): refuse new writers. */
  | { action: 'refuse'; reason: 'unreadable' | 'runtime-unknown' };

/** Decide what to do with one fence (null = unreadable file) at time `now` for controller `holder`. */
export function decideFenceRecovery(fence: FenceFile | null, observation: FenceObservation, now: number, holder: string): FenceAction {
  if (!fence) return { action: 'refuse', reason: 'unreadable' };
  const own = fence.lease.holder === holder;
  // Our own live supervisor is in charge; our own dead one left its runtime to us (no lease to wait for).
  if (own && observation.supervisorAlive) return { action: 'own' };
  if (!own && fence.lease.expiresAt > now) return { action: 'wait', ms: fence.lease.expiresAt - now };
  const runtime = observation.runtimeAlive === true;
  if (observation.supervisorAlive || runtime) return { action: 'terminate', supervisor: observation.supervisorAlive, runtime };
  if (observation.runtimeAlive === 'unknown') return { action: 'refuse', reason: 'runtime-unknown' };
  return { action: 'clear' };
}

/** How long startup waits: until the latest foreign lease expired, never longer than `maxWaitMs`. */
export function planLeaseWait(fences: readonly (FenceFile | null)[], now: number, holder: string, maxWaitMs: number): number {
  let wait = 0;
  for (const fence of fences) {
    if (fence && fence.lease.holder !== holder) wait = Math.max(wait, fence.lease.expiresAt - now);
  }
  return Math.min(Math.max(0, wait), Math.max(0, maxWaitMs));
}

/** Why a supervisor ends its runtime. */
export type StopReason = 'stop-requested' | 'control-lost' | 'lease-expired' | 'app-exited';

/** What a supervisor knows at one instant. */
export interface SupervisorState {
  connected: boolean;
  leaseExpiresAt: number;
  appExited: boolean;
  stopRequested: boolean;
}

/** Whether (and why) a supervisor must stop its runtime now; null = keep running. First cause wins. */
export function decideSupervision(state: SupervisorState, now: number): StopReason | null {
  if (state.stopRequested) return 'stop-requested';
  if (!state.connected) return 'control-lost';
  if (state.appExited) return 'app-exited';
  if (now >= state.leaseExpiresAt) return 'lease-expired';
  return null;
}

// Pure: what a runner node's local provider does with canary candidates. A canary request stages a
// code-only release beside the running baseline without moving the pointer; a later ordinary request
// for the candidate's release promotes it (the running app becomes the pointer's, no restart), any
// other request (the baseline's release, another release, stopped) aborts it first. No disk, no clock.

/** A staged candidate as the provider sees it: its release and whether its app is up right now. */
export interface StagedCanaryFacts {
  releaseId: string;
  up: boolean;
}

/** What the provider knows when a canary request arrives (after staging and the read-only migration check). */
export interface CanaryStartFacts {
  releaseId: string;
  /** Migrations the candidate would apply (after the history check). */
  pendingMigrations: number;
  /** The pointer's release, null when the project is stopped or was never deployed here. */
  baselineReleaseId: string | null;
  /** The baseline's app is up and no interrupted deploy waits to be settled with the writer stopped. */
  baselineRunning: boolean;
  staged: StagedCanaryFacts | null;
}

export type CanaryStartPlan =
  | { kind: 'start'; replaceStaged: boolean }
  | { kind: 'keep' }
  | { kind: 'refuse'; code: 'SVC_CANARY_PENDING_MIGRATIONS' | 'SVC_CANARY_NO_BASELINE'; message: string };

/** Decide a canary request: start the candidate, keep the one already up for that release, or refuse. */
export function planCanaryStart(facts: CanaryStartFacts): CanaryStartPlan {
  if (facts.staged?.releaseId === facts.releaseId && facts.staged.up) return { kind: 'keep' };
  if (facts.baselineReleaseId === null || !facts.baselineRunning) {
    return { kind: 'refuse', code: 'SVC_CANARY_NO_BASELINE', message: `No baseline runs on the node for a canary of ${facts.releaseId}` };
  }
  if (facts.baselineReleaseId === facts.releaseId) {
    return {
      kind: 'refuse',
      code: 'SVC_CANARY_NO_BASELINE',
      message: `${facts.releaseId} is the running release; a canary needs a baseline of another release`,
    };
  }
  // Both apps share one database while the canary runs: the candidate may not change its schema.
  if (facts.pendingMigrations > 0) {
    return {
      kind: 'refuse',
      code: 'SVC_CANARY_PENDING_MIGRATIONS',
      message: `${facts.releaseId} has ${facts.pendingMigrations} pending migration(s); a canary must be code-only`,
    };
  }
  return { kind: 'start', replaceStaged: facts.staged !== null };
}

/** What an ordinary (non-canary) request does with a staged candidate. */
export type StagedCanaryAction = 'none' | 'promote' | 'abort';

/**
 * A running request for the candidate's release while its app is up promotes it; anything else with a
 * candidate staged (the baseline's release, another release, a stopped state, or a candidate whose
 * app is down) aborts it first and then converges as usual.
 */
export function decideStagedCanary(staged: StagedCanaryFacts | null, desired: { state: 'running' | 'stopped'; releaseId: string | null }): StagedCanaryAction {
  if (staged === null) return 'none';
  return desired.state === 'running' && desired.releaseId === staged.releaseId && staged.up ? 'promote' : 'abort';
}

// Pure: how a runner node's local provider converges one running request — the control plane's own
// cutover decision (chooseCutover) over the node's facts, plus the checks a data-restoring rollback
// needs before anything stops. No disk, no clock: the provider gathers the facts and acts.
import { chooseCutover, type Cutover } from '../jobs/choose-cutover.js';
import type { RollbackIntent } from './provider-contract.js';

/** What the provider knows before it touches anything. */
export interface NodeCutoverFacts {
  /** Migrations the release needs (deploy: pending after the history check; rollback: its migrations the database lacks). */
  pendingMigrations: number;
  /** The active release's app is up and can keep serving meanwhile. */
  priorRunning: boolean;
  /** The release asked for is the one already active (its app had ended): nothing runs beside it. */
  sameRelease: boolean;
  rollback: RollbackIntent | null;
  /** The node's active release (its pointer). */
  activeReleaseId: string | null;
  /** A snapshot taken before the active release was deployed exists on the node. */
  activeSnapshotExists: boolean;
}

export type NodeCutoverPlan =
  | { kind: 'blue-green' }
  | { kind: 'stop-first'; restore: false }
  | { kind: 'stop-first'; restore: true; snapshotOf: string }
  | { kind: 'refuse'; code: 'SVC_RESTORE_NOT_ALLOWED' | 'SVC_SNAPSHOT_MISSING'; message: string };

/** Decide the cutover of one running request. */
export function planNodeCutover(facts: NodeCutoverFacts): NodeCutoverPlan {
  if (facts.rollback?.restoreData) {
    if (facts.activeReleaseId === null || facts.rollback.fromReleaseId !== facts.activeReleaseId) {
      return {
        kind: 'refuse',
        code: 'SVC_RESTORE_NOT_ALLOWED',
        message: `The node's active release is ${facts.activeReleaseId ?? 'none'}, not ${facts.rollback.fromReleaseId ?? 'none'}`,
      };
    }
    if (!facts.activeSnapshotExists)
      return { kind: 'refuse', code: 'SVC_SNAPSHOT_MISSING', message: `The node has no snapshot taken before ${facts.activeReleaseId} was deployed` };
    return { kind: 'stop-first', restore: true, snapshotOf: facts.activeReleaseId };
  }
  // The node journals nothing itself (point-in-time recovery runs on the control plane only).
  const cutover: Cutover = chooseCutover({
    pendingMigrations: facts.pendingMigrations,
    priorRunning: facts.priorRunning && !facts.sameRelease,
    journaled: false,
  });
  return cutover === 'blue-green' ? { kind: 'blue-green' } : { kind: 'stop-first', restore: false };
}

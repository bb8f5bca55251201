// What a rollback request is and the checks every rollback runs first, local or on a runner node: the
// state machine validates the target (inactive, artifact kept, confirmation phrase, predecessor for a
// data restore) and the database path must stay where the active release keeps it.
import { SvcError } from '../core/errors.js';
import type { TransactionSubject } from './release-commits.js';
import type { ReleaseDeps } from './release-deps.js';
import { transition, type TransitionResult } from './release-state.js';
import { activeReleaseRow, getRelease, loadReleaseSet, releaseConfig, type ReleaseRow } from './release-store.js';

export interface RollbackInput extends TransactionSubject {
  releaseId: string;
  restoreData: boolean;
  confirm?: string | undefined;
}

export interface RollbackResult {
  release: ReleaseRow;
  previousReleaseId: string | null;
  restoredData: boolean;
}

/** A validated rollback: its target, the release active now, and the state machine's decision. */
export interface RollbackDecision {
  target: ReleaseRow;
  active: ReleaseRow | undefined;
  decision: TransitionResult;
}

/**
 * Validate a rollback under the project lock (throws the state machine's SvcError, or
 * SVC_DATABASE_PATH_CHANGED). `dataOnNode`: the pre-deploy snapshot is the runner node's, not a row here.
 */
export function decideRollback(deps: ReleaseDeps, input: RollbackInput, options: { dataOnNode?: boolean } = {}): RollbackDecision {
  const { ctx } = deps;
  const projectId = input.project.id;
  const target = getRelease(ctx, projectId, input.releaseId);
  const decision = transition(loadReleaseSet(ctx, projectId, input.project.slug), {
    type: 'rollback',
    releaseId: target.id,
    restoreData: input.restoreData,
    ...(input.confirm === undefined ? {} : { confirmation: input.confirm }),
    canRollback: true,
    ...(options.dataOnNode ? { dataOnNode: true } : {}),
  });
  const active = activeReleaseRow(ctx, projectId);
  checkSameDatabasePath(active, target);
  return { target, active, decision };
}

/** A rollback keeps the database where the active release has it. */
export function checkSameDatabasePath(active: ReleaseRow | undefined, target: ReleaseRow): void {
  if (active && releaseConfig(active).database.path !== releaseConfig(target).database.path) {
    throw new SvcError(
      'SVC_DATABASE_PATH_CHANGED',
      `${target.id} uses database.path "${releaseConfig(target).database.path}", the active release "${releaseConfig(active).database.path}".`,
    );
  }
}

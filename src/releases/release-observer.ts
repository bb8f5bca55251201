// Observers of the release transaction and of rollbacks (GitHub reports them as check runs and
// deployments). Observers must never break a release: every call goes through `observe`, which
// catches and logs; only `admit` may refuse an upload, and only with an SvcError.
import { isSvcError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { ReleaseStep } from './contract.js';

/** Where an upload came from (CI uploads send the commit and repository headers). */
export interface ReleaseSource {
  commitSha: string;
  repositoryId: number | null;
}

/** The release an event is about (ids only; observers read anything else through exported functions). */
export interface ObservedRelease {
  id: string;
  projectId: string;
}

/** A rollback as observers see it. */
export interface ObservedRollback {
  phase: 'start' | 'complete' | 'fail';
  projectId: string;
  /** The release being made active again. */
  releaseId: string;
  /** The release that was active before. */
  fromReleaseId: string | null;
  restoreData: boolean;
  actor: { type: string; id: string; name?: string | null };
  error?: { code: string; message: string };
}

export interface ReleaseObserver {
  /** Under the project lock before the candidate exists: throw an SvcError to refuse the upload. */
  admit?(projectId: string, source: ReleaseSource): void;
  /** Synchronously inside the candidate's insert transaction (write durable rows here, nothing slow). */
  onCandidate?(release: ObservedRelease, source: ReleaseSource | null): void;
  /** A step was entered (or finished, with details such as `{ applied }` or `{ snapshotBytes }`). */
  onPhase?(release: ObservedRelease, step: ReleaseStep, details: Record<string, unknown>): void;
  /** The transaction ended (the row is active or failed). */
  onOutcome?(release: ObservedRelease): void;
  onRollback?(event: ObservedRollback): void;
}

/** Call an observer hook; errors are logged, never thrown (except an SvcError from `admit`). */
export function observe(logger: Logger, call: () => void, options: { rethrowSvcErrors?: boolean } = {}): void {
  try {
    call();
  } catch (error) {
    if (options.rethrowSvcErrors && isSvcError(error)) throw error;
    logger.error({ err: error }, 'a release observer failed (ignored)');
  }
}

/**
 * One observer that calls each of `observers` in order. Every observer of an event runs even when
 * an earlier one throws (the first error is rethrown afterwards, for `observe` to log); `admit`
 * stops at the first refusal.
 */
export function combineObservers(observers: readonly (ReleaseObserver | null | undefined)[]): ReleaseObserver {
  const all = observers.filter((o): o is ReleaseObserver => o !== null && o !== undefined);
  const each = (call: (o: ReleaseObserver) => void): void => {
    let first: { error: unknown } | null = null;
    for (const o of all) {
      try {
        call(o);
      } catch (error) {
        first ??= { error };
      }
    }
    if (first !== null) throw first.error;
  };
  return {
    admit: (projectId, source) => all.forEach((o) => o.admit?.(projectId, source)),
    onCandidate: (release, source) => each((o) => o.onCandidate?.(release, source)),
    onPhase: (release, step, details) => each((o) => o.onPhase?.(release, step, details)),
    onOutcome: (release) => each((o) => o.onOutcome?.(release)),
    onRollback: (event) => each((o) => o.onRollback?.(event)),
  };
}

// Callers waiting for a node's outcome of one generation (the release pipeline's deploys and rollbacks
// of placed projects). A wake-up only prompts the waiter to read the operation again from the
// database, so a wake-up from a transaction that later rolled back changes nothing.
import type { ControlDb } from '../core/control-db.js';
import { operationOfGeneration, type OperationRow } from './operation-store.js';

/** The outcome of a generation: observed, or the node's (or the control plane's) stable code. */
export type GenerationOutcome = { ok: true } | { ok: false; code: string };

/** Pure: the outcome of an operation, or 'open' while its node still works on it (no row: superseded). */
export function outcomeOfOperation(op: Pick<OperationRow, 'status' | 'error_code'> | undefined): GenerationOutcome | 'open' {
  if (!op) return { ok: false, code: 'SVC_NODE_GENERATION_SUPERSEDED' };
  if (op.status === 'observed') return { ok: true };
  if (op.status === 'superseded') return { ok: false, code: 'SVC_NODE_GENERATION_SUPERSEDED' };
  if (op.status === 'failed') return { ok: false, code: op.error_code ?? 'SVC_PROVIDER_FAILED' };
  return 'open';
}

/** Per-project wake-ups. */
export class GenerationWaiters {
  readonly #waiting = new Map<string, Set<() => void>>();

  /** Something about the project's operations changed. */
  wake(projectId: string): void {
    for (const wake of [...(this.#waiting.get(projectId) ?? [])]) wake();
  }

  /** Resolve with the outcome of `generation` once its operation settled, or null after `waitMs`. */
  async await(db: ControlDb, projectId: string, generation: number, waitMs: number): Promise<GenerationOutcome | null> {
    const read = (): GenerationOutcome | 'open' => outcomeOfOperation(operationOfGeneration(db, projectId, generation));
    const first = read();
    if (first !== 'open') return first;
    return new Promise((resolve) => {
      const set = this.#waiting.get(projectId) ?? new Set();
      this.#waiting.set(projectId, set);
      const finish = (outcome: GenerationOutcome | null): void => {
        clearTimeout(timer);
        set.delete(check);
        if (set.size === 0) this.#waiting.delete(projectId);
        resolve(outcome);
      };
      // A wake-up arrives inside the writer's transaction: read once it has committed.
      const check = (): void =>
        void Promise.resolve().then(() => {
          const now = db.open ? read() : null;
          if (now !== 'open') finish(now);
        });
      const timer = setTimeout(() => finish(null), waitMs);
      timer.unref();
      set.add(check);
    });
  }
}

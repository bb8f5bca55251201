// How a deploy hands traffic from the active release to the candidate. Pure.

export type Cutover = 'blue-green' | 'stop-first';

export interface CutoverFacts {
  /** Migrations the candidate would apply. */
  pendingMigrations: number;
  /** The prior release's app is running under supervision (it can keep serving meanwhile). */
  priorRunning: boolean;
  /** The project journals its database for point-in-time recovery. */
  journaled: boolean;
}

/**
 * `blue-green`: the candidate starts beside the running release, which keeps serving until the
 * candidate is healthy; a failed candidate never interrupts it. Only when nothing changes the schema
 * and no journal needs a single writer; otherwise `stop-first` (stop, snapshot, migrate, start).
 */
export function chooseCutover(facts: CutoverFacts): Cutover {
  return facts.pendingMigrations === 0 && facts.priorRunning && !facts.journaled ? 'blue-green' : 'stop-first';
}

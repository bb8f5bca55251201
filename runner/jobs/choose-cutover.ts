// How a deploy or a rollback hands traffic from the active release to the next one. Pure; shared by
// the control plane's release pipeline and runner nodes, so both choose the same way.

export type Cutover = 'blue-green' | 'stop-first';

export interface CutoverFacts {
  /** Migrations the next release would need applied (for a rollback: its migrations the database lacks). */
  pendingMigrations: number;
  /** The prior release's app is running under supervision (it can keep serving meanwhile). */
  priorRunning: boolean;
  /** The project journals its database for point-in-time recovery. */
  journaled: boolean;
  /** The database is replaced (a `--restore-data` rollback): nobody may write it meanwhile. */
  restoresData?: boolean;
}

/**
 * `blue-green`: the next release starts beside the running one, which keeps serving until the next
 * is healthy; a failed start never interrupts it. Only when nothing changes the data (no schema
 * change, no restore) and no journal needs a single writer; otherwise `stop-first` (stop, then
 * snapshot/migrate or restore, then start) with the project's requests held meanwhile.
 */
export function chooseCutover(facts: CutoverFacts): Cutover {
  const dataUnchanged = facts.pendingMigrations === 0 && facts.restoresData !== true;
  return dataUnchanged && facts.priorRunning && !facts.journaled ? 'blue-green' : 'stop-first';
}

/** A migration as the comparison needs it: its version and the SHA-256 of its bytes. */
export interface MigrationStamp {
  version: number;
  checksum: string;
}

/**
 * How many of a rollback target's migrations the database does not hold as they are (missing, or
 * applied with other bytes). Migrations applied after the target's are expected (it is older) and
 * fine: its code ran against that schema's predecessor, which code-only rollbacks already accept.
 */
export function unappliedMigrations(targetFiles: readonly MigrationStamp[], applied: readonly MigrationStamp[]): number {
  const byVersion = new Map(applied.map((row) => [row.version, row.checksum]));
  return targetFiles.filter((file) => byVersion.get(file.version) !== file.checksum).length;
}

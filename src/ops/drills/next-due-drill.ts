// Pure: which restore drill (if any) runs in this monitor pass (at most one, so a pass stays bounded).

/** A drill whose setup failed is retried after five minutes (not every pass). */
export const DRILL_SETUP_RETRY_MS = 5 * 60_000;

/** A project that could be drilled: only projects with a retained backup are candidates. */
export interface DrillCandidate {
  projectId: string;
  /** Creation time of the newest retained backup; null when none is retained. */
  newestBackupAt: number | null;
}

/** The outcome of one drill: `setup-failed` = the backup copy could not be restored; `failed` = boot or a check failed. */
export type DrillOutcome = 'passed' | 'failed' | 'setup-failed';

/** Record of one restore drill run (what `runRestoreDrill` returns). */
export interface DrillReceipt {
  projectId: string;
  backupFile: string;
  startedAt: number;
  finishedAt: number;
  outcome: DrillOutcome;
  checks: { name: string; path: string; expected: number; status: number | null; ok: boolean }[];
  /** SVC_OPS_DRILL_SETUP, SVC_OPS_DRILL_FAILED or SVC_OPS_DRILL_TIMEOUT; null when passed. */
  code: string | null;
  error: string | null;
}

/** The drill to run now, or null: the most overdue candidate (ties by project id). */
export function nextDueDrill(
  projects: readonly DrillCandidate[],
  receipts: readonly Pick<DrillReceipt, 'projectId' | 'startedAt' | 'finishedAt' | 'outcome'>[],
  now: number,
  options: { intervalMs: number },
): { projectId: string; dueAt: number } | null {
  const latest = new Map<string, Pick<DrillReceipt, 'startedAt' | 'finishedAt' | 'outcome'>>();
  for (const r of receipts) {
    const seen = latest.get(r.projectId);
    if (!seen || r.startedAt > seen.startedAt) latest.set(r.projectId, r);
  }
  let best: { projectId: string; dueAt: number } | null = null;
  for (const p of projects) {
    if (p.newestBackupAt === null) continue;
    const last = latest.get(p.projectId);
    const dueAt = !last
      ? Number.NEGATIVE_INFINITY
      : last.outcome === 'setup-failed'
        ? last.finishedAt + DRILL_SETUP_RETRY_MS
        : last.startedAt + options.intervalMs;
    if (dueAt > now) continue;
    if (!best || dueAt < best.dueAt || (dueAt === best.dueAt && p.projectId < best.projectId)) best = { projectId: p.projectId, dueAt };
  }
  return best;
}

// Pure decisions of scheduled backups: which are due, which are overdue, which backups retention
// removes. No clock or disk here; the scheduler passes `now` and rows in.

/** What a decision needs of a schedule row. */
export interface ScheduleFacts {
  interval_ms: number;
  next_due_at: number;
  last_success_at: number | null;
  updated_at: number;
  overdue_reported_at: number | null;
}

/** After a failed scheduled run, try again after this long (or the interval, if shorter). */
export const RETRY_AFTER_FAILURE_MS = 5 * 60_000;

/** Whether a scheduled run is due. */
export function isDue(row: Pick<ScheduleFacts, 'next_due_at'>, now: number): boolean {
  return now >= row.next_due_at;
}

/**
 * Overdue: no successful scheduled backup for two intervals since the last success (or since the
 * schedule was set), i.e. at least one whole period was missed.
 */
export function isOverdue(row: Pick<ScheduleFacts, 'interval_ms' | 'last_success_at' | 'updated_at'>, now: number): boolean {
  const since = Math.max(row.last_success_at ?? 0, row.updated_at);
  return now - since >= 2 * row.interval_ms;
}

/** Whether an overdue schedule should be reported now (once per overdue episode). */
export function shouldReportOverdue(row: ScheduleFacts, now: number): boolean {
  return isOverdue(row, now) && row.overdue_reported_at === null;
}

/** When the next run is due after a run that succeeded or failed. */
export function nextDueAfter(row: Pick<ScheduleFacts, 'interval_ms'>, now: number, ok: boolean): number {
  return now + (ok ? row.interval_ms : Math.min(row.interval_ms, RETRY_AFTER_FAILURE_MS));
}

/**
 * Scheduled backups to remove: beyond the newest `keep`, or older than `maxAgeMs` — but the newest
 * backup is always kept so retention never leaves a project with none. `backups` newest first.
 */
export function backupsToPrune<T extends { id: string; created_at: number }>(backups: readonly T[], keep: number, maxAgeMs: number, now: number): T[] {
  return backups.filter((b, index) => index > 0 && (index >= keep || now - b.created_at > maxAgeMs));
}

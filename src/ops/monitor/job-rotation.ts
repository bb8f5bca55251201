// Pure: which scheduled jobs a monitor pass inspects (five per pass, rotating, so a pass stays
// bounded however many jobs there are) and when a job counts as overdue. No clock, no disk.

/** Job inspections per monitor pass. */
export const JOB_INSPECTIONS_PER_PASS = 5;

/** One scheduled job as a provider lists it; `key` is unique and stable (e.g. `backup:prj_1`). */
export interface JobRef {
  key: string;
  kind: string;
  projectId: string | null;
}

/**
 * The next `count` jobs after `cursor` in key order, wrapping around to the start, each at most
 * once; the new cursor is the last key picked (unchanged when there are no jobs).
 */
export function rotateJobInspections<T extends JobRef>(
  jobs: readonly T[],
  cursor: string | null,
  count = JOB_INSPECTIONS_PER_PASS,
): { inspect: T[]; cursor: string | null } {
  const sorted = [...new Map(jobs.map((j) => [j.key, j])).values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  if (sorted.length === 0 || count <= 0) return { inspect: [], cursor };
  const start = cursor === null ? 0 : sorted.findIndex((j) => j.key > cursor);
  const from = start === -1 ? 0 : start;
  const inspect: T[] = [];
  for (let i = 0; i < Math.min(count, sorted.length); i++) inspect.push(sorted[(from + i) % sorted.length]!);
  return { inspect, cursor: inspect.at(-1)!.key };
}

/** Overdue: the job's next run was due more than `graceMs` ago (null = nothing scheduled, never overdue). */
export function isJobOverdue(nextRunAt: number | null, now: number, graceMs: number): boolean {
  return nextRunAt !== null && now - nextRunAt > graceMs;
}

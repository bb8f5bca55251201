// Overdue jobs (an operational alert): svc's scheduled jobs are backup schedules, restore
// drills, audit-export delivery and alert delivery. Each pass inspects five of them, rotating with
// a persisted cursor; a job whose next run is past due by more than a grace is an incident.
import type { ControlDb } from '../../core/control-db.js';
import type { Condition } from './incident-transitions.js';
import { isJobOverdue, rotateJobInspections, type JobRef } from './job-rotation.js';

/** One kind of scheduled job: a cheap listing, and the due time of one job. */
export interface JobProvider {
  kind: string;
  list(): JobRef[];
  /** When the job's next run is (or was) due; null when nothing is scheduled. */
  nextRunAt(job: JobRef, now: number): number | null;
}

/** Result of one pass's inspections. */
export interface JobInspection {
  inspected: JobRef[];
  cursor: string | null;
  conditions: Condition[];
  errors: number;
}

/** Key of the incident of an overdue job. */
export const jobIncidentKey = (jobKey: string): string => `job.overdue:${jobKey}`;

/** Inspect the next five jobs after `cursor` (a provider that fails counts as an error, its jobs skipped). */
export function inspectJobs(providers: readonly JobProvider[], cursor: string | null, now: number, graceMs: number): JobInspection {
  const byKind = new Map(providers.map((p) => [p.kind, p]));
  const jobs: JobRef[] = [];
  let errors = 0;
  for (const p of providers) {
    try {
      jobs.push(...p.list());
    } catch {
      errors++;
    }
  }
  const { inspect, cursor: next } = rotateJobInspections(jobs, cursor);
  const conditions: Condition[] = [];
  const inspected: JobRef[] = [];
  for (const job of inspect) {
    let due: number | null;
    try {
      due = byKind.get(job.kind)!.nextRunAt(job, now);
    } catch {
      errors++;
      continue;
    }
    inspected.push(job);
    if (isJobOverdue(due, now, graceMs))
      conditions.push({
        key: jobIncidentKey(job.key),
        kind: 'job.overdue',
        projectId: job.projectId,
        details: { job: job.kind, jobKey: job.key, dueAt: new Date(due!).toISOString(), overdueMs: now - due! },
      });
  }
  return { inspected, cursor: next, conditions, errors };
}

/** Alert delivery as a job: due at the oldest pending notification's next attempt. */
export function alertDeliveryJob(db: ControlDb): JobProvider {
  return {
    kind: 'alert-delivery',
    list: () => [{ key: 'alert-delivery', kind: 'alert-delivery', projectId: null }],
    // A resolution waiting for its undelivered opening is not due (it cannot be sent yet).
    nextRunAt: () =>
      (
        db
          .prepare(
            `SELECT MIN(n.next_attempt_at) AS t FROM ops_notifications n WHERE n.status = 'pending'
               AND (n.transition = 'open' OR NOT EXISTS (SELECT 1 FROM ops_notifications o WHERE o.incident_id = n.incident_id AND o.transition = 'open' AND o.status <> 'delivered'))`,
          )
          .get() as { t: number | null }
      ).t,
  };
}

/** Read and write the persisted rotation cursor. */
export function readJobCursor(db: ControlDb): string | null {
  return (db.prepare('SELECT job_cursor AS c FROM ops_monitor_state WHERE id = 1').get() as { c: string | null } | undefined)?.c ?? null;
}

/** Persist the rotation cursor (the pass summary row carries it). */
export function writeJobCursor(db: ControlDb, cursor: string | null): void {
  db.prepare('INSERT INTO ops_monitor_state (id, job_cursor) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET job_cursor = excluded.job_cursor').run(cursor);
}

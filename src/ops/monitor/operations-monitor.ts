import type { Clock } from '../../core/clock.js';
import type { ControlDb } from '../../core/control-db.js';
import { SvcError } from '../../core/errors.js';
import type { IdGenerator } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import { drillFailedSource } from '../drills/drill-failed-source.js';
import { drillOverview } from '../drills/drill-store.js';
import { drillDueAt, runDueDrill, type RestoreDrillsOptions } from '../drills/run-due-drill.js';
import { deliverDueAlerts, type NotifyAlert } from './alert-delivery.js';
import { applyConditionGrace, type GracedCondition } from './condition-grace.js';
import { readConditionSince, writeConditionSince } from './condition-since-store.js';
import { applyIncidentPlan, listOpenIncidents, readMonitorOverview, recordPass } from './incident-store.js';
import { planIncidentTransitions, type OpenIncident } from './incident-transitions.js';
import { alertDeliveryJob, inspectJobs, jobIncidentKey, readJobCursor, writeJobCursor, type JobProvider } from './job-inspection.js';
import { listProjectIdsPage, type MonitorSource } from './monitor-sources.js';

/** At most this many projects are examined per pass (the next pass continues after them). */
export const PROJECTS_PER_PASS = 1000;

export interface OperationsMonitorOptions {
  db: ControlDb;
  clock: Clock;
  ids: IdGenerator;
  /** Poll interval, or `false` for manual passes only. */
  intervalMs: number | false;
  /** Forecast usage warning threshold (percent of a quota; the usage-warning source applies it). */
  usageWarningPercent: number;
  notify: NotifyAlert;
  sources: MonitorSource[];
  /** Restore drills: one due drill per pass; failed drills become `drill.failed` incidents. */
  restoreDrills?: RestoreDrillsOptions;
  /** Scheduled jobs to inspect (five per pass, rotating); alert delivery (and drills) are added here. */
  jobs?: JobProvider[];
  /** A job is overdue once its next run is this far past due (default 15 minutes). */
  jobGraceMs?: number;
  /** Project paging (default: the projects registry). */
  listProjects?: (afterId: string, limit: number) => string[];
  leaseMs?: number;
  maxBackoffMs?: number;
  notifyTimeoutMs?: number;
  schedule?: (fn: () => void, ms: number) => () => void;
  logger?: Logger;
}

/** Summary of one pass. */
export interface MonitorPassSummary {
  projects: number;
  conditions: number;
  opened: number;
  resolved: number;
  delivered: number;
  failed: number;
  sourceErrors: number;
  /** Jobs inspected this pass (at most five). */
  jobs: number;
  /** The drill this pass ran, if any. */
  drill: { projectId: string; outcome: string } | null;
}

export interface OperationsMonitor {
  /** One poll: examine up to 1,000 projects, persist transitions, deliver due notifications. */
  runOnce(signal?: AbortSignal): Promise<MonitorPassSummary>;
  start(): void;
  stop(): Promise<void>;
  overview(): ReturnType<typeof readMonitorOverview> & { intervalMs: number | false; drills: ReturnType<typeof drillOverview> };
}

/** Every project id, page by page (bounded: 100 pages). */
function allProjects(listProjects: (afterId: string, limit: number) => string[]): string[] {
  const out: string[] = [];
  let after = '';
  for (let i = 0; i < 100; i++) {
    const page = listProjects(after, PROJECTS_PER_PASS);
    out.push(...page);
    if (page.length < PROJECTS_PER_PASS) break;
    after = page[page.length - 1]!;
  }
  return out;
}

const defaultSchedule = (fn: () => void, ms: number) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
};

/** The operations monitor: polling, incident transitions and leased at-least-once delivery. */
export function createOperationsMonitor(options: OperationsMonitorOptions): OperationsMonitor {
  const { db, clock } = options;
  if (options.intervalMs !== false && (!Number.isInteger(options.intervalMs) || options.intervalMs < 1000))
    throw new SvcError('SVC_OPS_CONFIG', 'intervalMs must be an integer of at least 1000, or false.');
  if (!(options.usageWarningPercent > 0 && options.usageWarningPercent <= 100))
    throw new SvcError('SVC_OPS_CONFIG', 'usageWarningPercent must be in (0, 100].');
  const listProjects = options.listProjects ?? ((afterId: string, limit: number) => listProjectIdsPage(db, afterId, limit));
  let cursor = '';
  let stopController = new AbortController();
  let stopped = true;
  let cancel: (() => void) | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const sources = [...options.sources, ...(options.restoreDrills ? [drillFailedSource(db)] : [])];
  const drills = options.restoreDrills;
  const jobs: JobProvider[] = [alertDeliveryJob(db), ...(options.jobs ?? [])];
  if (drills) {
    jobs.push({
      kind: 'restore-drill',
      list: () =>
        allProjects(listProjects)
          .filter((id) => (!drills.eligible || drills.eligible(id)) && drills.backups.newest(id) !== null)
          .map((id) => ({ key: `restore-drill:${id}`, kind: 'restore-drill', projectId: id })),
      nextRunAt: (job) => drillDueAt(drills, db, job.projectId!),
    });
  }
  const jobGraceMs = options.jobGraceMs ?? 15 * 60_000;

  async function pass(signal?: AbortSignal): Promise<MonitorPassSummary> {
    let page = listProjects(cursor, PROJECTS_PER_PASS);
    if (page.length === 0 && cursor !== '') {
      cursor = '';
      page = listProjects(cursor, PROJECTS_PER_PASS);
    }
    cursor = page.length < PROJECTS_PER_PASS ? '' : page[page.length - 1]!;
    const scanned = new Set(page);
    const passSignal = AbortSignal.any([stopController.signal, ...(signal ? [signal] : [])]);
    const logError = (what: string) => (error: unknown) => options.logger?.error({ err: error instanceof Error ? error.message : String(error) }, what);
    // One due restore drill first, so its receipt is seen by the failed-drill source below.
    let drill: MonitorPassSummary['drill'] = null;
    if (drills && !passSignal.aborted) {
      try {
        const receipt = await runDueDrill(
          drills,
          { db, ids: options.ids, now: () => clock.now(), onError: logError('restore drill receipt hook failed'), signal: passSignal },
          page,
        );
        if (receipt) drill = { projectId: receipt.projectId, outcome: receipt.outcome };
      } catch (error) {
        logError('restore drill failed to run')(error);
      }
    }
    const now = clock.now();
    const graced: GracedCondition[] = [];
    let sourceErrors = 0;
    for (const source of sources) {
      try {
        graced.push(...(await source(page, now, passSignal)));
      } catch (error) {
        sourceErrors++;
        logError('operations monitor source failed')(error);
      }
    }
    const jobCheck = inspectJobs(jobs, readJobCursor(db), now, jobGraceMs);
    sourceErrors += jobCheck.errors;
    const inspectedKeys = new Set(jobCheck.inspected.map((j) => jobIncidentKey(j.key)));
    // Only what this pass examined may resolve (or forget its first-seen time).
    const inScope = (i: Pick<OpenIncident, 'key' | 'projectId'>) =>
      i.key.startsWith('job.overdue:') ? inspectedKeys.has(i.key) : i.projectId === null || scanned.has(i.projectId);
    const stored = readConditionSince(db);
    const grace = applyConditionGrace(graced, stored.since, now, (key) => sourceErrors === 0 && inScope({ key, projectId: stored.projectOf.get(key) ?? null }));
    for (const c of graced) stored.projectOf.set(c.key, c.projectId);
    writeConditionSince(db, grace.since, stored.projectOf);
    const open = listOpenIncidents(db);
    // An incident already open stays open while its condition holds, even if its first-seen time was lost.
    const openKeys = new Set(open.map((i) => i.key));
    const confirmedKeys = new Set(grace.confirmed.map((c) => c.key));
    const stillOpen = graced.filter((c) => openKeys.has(c.key) && !confirmedKeys.has(c.key)).map(({ graceMs: _g, ...c }) => c);
    const conditions = [...grace.confirmed, ...stillOpen, ...jobCheck.conditions];
    const plan = planIncidentTransitions(open, conditions, inScope);
    // A failing source must not resolve the incidents it could not see.
    if (sourceErrors > 0) plan.resolve = [];
    const alerts = applyIncidentPlan(db, plan, now, options.ids);
    writeJobCursor(db, jobCheck.cursor);
    const delivery = await deliverDueAlerts({
      db,
      clock,
      notify: options.notify,
      leaseMs: options.leaseMs ?? 60_000,
      maxBackoffMs: options.maxBackoffMs ?? 300_000,
      timeoutMs: options.notifyTimeoutMs ?? 10_000,
      signal: passSignal,
    });
    const summary: MonitorPassSummary = {
      projects: page.length,
      conditions: conditions.length,
      opened: alerts.filter((a) => a.transition === 'open').length,
      resolved: alerts.filter((a) => a.transition === 'resolve').length,
      ...delivery,
      sourceErrors,
      jobs: jobCheck.inspected.length,
      drill,
    };
    recordPass(db, clock.now(), summary);
    return summary;
  }

  function runOnce(signal?: AbortSignal): Promise<MonitorPassSummary> {
    const next = queue.then(() => pass(signal));
    queue = next.catch(() => undefined);
    return next;
  }

  function loop(): void {
    if (stopped || options.intervalMs === false) return;
    const interval = options.intervalMs;
    runOnce()
      .catch((error: unknown) => options.logger?.error({ err: error instanceof Error ? error.message : String(error) }, 'operations monitor pass failed'))
      .finally(() => {
        if (!stopped) cancel = (options.schedule ?? defaultSchedule)(loop, interval);
      });
  }

  return {
    runOnce,
    start() {
      if (!stopped || options.intervalMs === false) return;
      stopped = false;
      stopController = new AbortController();
      cancel = (options.schedule ?? defaultSchedule)(loop, options.intervalMs);
    },
    async stop() {
      stopped = true;
      cancel?.();
      stopController.abort();
      await queue;
    },
    overview: () => ({ intervalMs: options.intervalMs, ...readMonitorOverview(db), drills: drillOverview(db) }),
  };
}

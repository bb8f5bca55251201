import type { Clock } from '../../core/clock.js';
import type { ControlDb } from '../../core/control-db.js';
import { SvcError } from '../../core/errors.js';
import type { IdGenerator } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import { deliverDueAlerts, type NotifyAlert } from './alert-delivery.js';
import { applyIncidentPlan, listOpenIncidents, readMonitorOverview, recordPass } from './incident-store.js';
import { planIncidentTransitions, type Condition } from './incident-transitions.js';
import { listProjectIdsPage, type MonitorSource } from './monitor-sources.js';

/** At most this many projects are examined per pass (the next pass continues after them). */
export const PROJECTS_PER_PASS = 1000;

export interface OperationsMonitorOptions {
  db: ControlDb;
  clock: Clock;
  ids: IdGenerator;
  /** Poll interval, or `false` for manual passes only. */
  intervalMs: number | false;
  /** Forecast usage warning threshold (forecasts are not implemented yet; validated and kept). */
  usageWarningPercent: number;
  notify: NotifyAlert;
  sources: MonitorSource[];
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
}

export interface OperationsMonitor {
  /** One poll: examine up to 1,000 projects, persist transitions, deliver due notifications. */
  runOnce(signal?: AbortSignal): Promise<MonitorPassSummary>;
  start(): void;
  stop(): Promise<void>;
  overview(): ReturnType<typeof readMonitorOverview> & { intervalMs: number | false };
}

const defaultSchedule = (fn: () => void, ms: number) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
};

/** The operations monitor: polling, incident transitions and leased at-least-once delivery. */
export function createOperationsMonitor(options: OperationsMonitorOptions): OperationsMonitor {
  const { db, clock } = options;
  if (options.intervalMs !== false && (!Number.isInteger(options.intervalMs) || options.intervalMs < 1000)) throw new SvcError('SVC_OPS_CONFIG', 'intervalMs must be an integer of at least 1000, or false.');
  if (!(options.usageWarningPercent > 0 && options.usageWarningPercent <= 100)) throw new SvcError('SVC_OPS_CONFIG', 'usageWarningPercent must be in (0, 100].');
  const listProjects = options.listProjects ?? ((afterId: string, limit: number) => listProjectIdsPage(db, afterId, limit));
  let cursor = '';
  let stopController = new AbortController();
  let stopped = true;
  let cancel: (() => void) | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  async function pass(signal?: AbortSignal): Promise<MonitorPassSummary> {
    let page = listProjects(cursor, PROJECTS_PER_PASS);
    if (page.length === 0 && cursor !== '') {
      cursor = '';
      page = listProjects(cursor, PROJECTS_PER_PASS);
    }
    cursor = page.length < PROJECTS_PER_PASS ? '' : page[page.length - 1]!;
    const now = clock.now();
    const conditions: Condition[] = [];
    let sourceErrors = 0;
    for (const source of options.sources) {
      try {
        conditions.push(...source(page, now));
      } catch (error) {
        sourceErrors++;
        options.logger?.error({ err: error instanceof Error ? error.message : String(error) }, 'operations monitor source failed');
      }
    }
    const plan = planIncidentTransitions(listOpenIncidents(db), conditions, new Set(page));
    // A failing source must not resolve the incidents it could not see.
    if (sourceErrors > 0) plan.resolve = [];
    const alerts = applyIncidentPlan(db, plan, now, options.ids);
    const delivery = await deliverDueAlerts({ db, clock, notify: options.notify, leaseMs: options.leaseMs ?? 60_000, maxBackoffMs: options.maxBackoffMs ?? 300_000, timeoutMs: options.notifyTimeoutMs ?? 10_000, signal: AbortSignal.any([stopController.signal, ...(signal ? [signal] : [])]) });
    const summary: MonitorPassSummary = { projects: page.length, conditions: conditions.length, opened: alerts.filter((a) => a.transition === 'open').length, resolved: alerts.filter((a) => a.transition === 'resolve').length, ...delivery, sourceErrors };
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
    overview: () => ({ intervalMs: options.intervalMs, ...readMonitorOverview(db) }),
  };
}

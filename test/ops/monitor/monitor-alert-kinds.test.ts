// The alert kinds added to the monitor: unhealthy always-on apps (with a grace, probed over real
// loopback HTTP) and overdue jobs (five rotating inspections per pass, cursor persisted).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { backupFailureSource } from '../../../src/ops/monitor/monitor-sources.js';
import { unhealthyAppSource, type AppHealthReader } from '../../../src/ops/monitor/app-health-source.js';
import type { OperationalAlert } from '../../../src/ops/monitor/incident-store.js';
import type { JobProvider } from '../../../src/ops/monitor/job-inspection.js';
import { createOperationsMonitor, type OperationsMonitorOptions } from '../../../src/ops/monitor/operations-monitor.js';
import { openMonitorDb } from './monitor-db.js';

const MIN = 60_000;

describe('monitor alert kinds', () => {
  let env: ReturnType<typeof openMonitorDb> | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    env?.close();
    env = undefined;
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = undefined;
  });

  function monitor(over: Partial<OperationsMonitorOptions>, sent: OperationalAlert[], projects = ['p1', 'p2']) {
    return createOperationsMonitor({
      db: env!.db,
      clock: env!.clock,
      ids: env!.ids,
      intervalMs: false,
      usageWarningPercent: 80,
      notify: async (alert) => void sent.push(alert),
      listProjects: (after, limit) => projects.filter((p) => p > after).slice(0, limit),
      sources: [],
      ...over,
    });
  }

  it('backup.failed: opens when the last scheduled run failed and resolves with the next success', async () => {
    env = openMonitorDb();
    const sent: OperationalAlert[] = [];
    let lastFailure: { at: string; code: string } | null = { at: new Date(env.clock.now()).toISOString(), code: 'SVC_PROJECT_LOCKED' };
    const schedule = () => ({
      intervalMinutes: 60,
      keep: 7,
      maxAgeDays: 30,
      nextDueAt: new Date().toISOString(),
      lastSuccessAt: null,
      lastFailure,
      overdue: false,
    });
    const backups = { list: (projectId: string) => ({ backups: [], schedule: projectId === 'p1' ? schedule() : null }) };
    const m = monitor({ sources: [backupFailureSource(backups)] }, sent);
    await m.runOnce();
    expect(sent.map((a) => [a.kind, a.transition, a.projectId])).toEqual([['backup.failed', 'open', 'p1']]);
    expect(sent[0]!.details).toMatchObject({ code: 'SVC_PROJECT_LOCKED' });
    lastFailure = null;
    await m.runOnce();
    expect(sent.map((a) => [a.kind, a.transition])).toEqual([
      ['backup.failed', 'open'],
      ['backup.failed', 'resolve'],
    ]);
    await m.stop();
  });

  it('app.unhealthy: a failing health path or a restarting app opens only after the grace and resolves when healthy', async () => {
    env = openMonitorDb();
    let healthStatus = 500;
    server = createServer((req, res) => void res.writeHead(req.url === '/healthz' ? healthStatus : 404).end());
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    let p2State: 'running' | 'restarting' = 'restarting';
    const reader: AppHealthReader = {
      active: (id) => (id === 'p3' ? null : { releaseId: `rel_${id}`, healthPath: '/healthz' }),
      status: (id) =>
        id === 'p1'
          ? { state: 'running', crashStreak: 0, host: '127.0.0.1', port }
          : { state: p2State, crashStreak: 3, host: '127.0.0.1', port: p2State === 'running' ? port : null },
    };
    const sent: OperationalAlert[] = [];
    const m = monitor({ sources: [unhealthyAppSource({ reader, graceMs: 2 * MIN })] }, sent, ['p1', 'p2', 'p3']);
    expect(await m.runOnce()).toMatchObject({ conditions: 0, opened: 0 }); // first seen: within the grace
    env.clock.advance(2 * MIN - 1);
    expect(await m.runOnce()).toMatchObject({ opened: 0 });
    env.clock.advance(1);
    expect(await m.runOnce()).toMatchObject({ opened: 2, delivered: 2 });
    expect(sent.map((a) => [a.kind, a.projectId, a.details.reason])).toEqual([
      ['app.unhealthy', 'p1', 'failing-health'],
      ['app.unhealthy', 'p2', 'restarting'],
    ]);
    expect(sent[0]!.details).toMatchObject({ releaseId: 'rel_p1', healthStatus: 500 });
    healthStatus = 200;
    p2State = 'running';
    expect(await m.runOnce()).toMatchObject({ resolved: 2, delivered: 2 });
    expect(sent.slice(2).map((a) => [a.transition, a.id])).toEqual([
      ['resolve', `${sent[0]!.incidentId}.resolve`],
      ['resolve', `${sent[1]!.incidentId}.resolve`],
    ]);
    // A new unhealthy episode starts its grace again.
    healthStatus = 503;
    expect(await m.runOnce()).toMatchObject({ opened: 0 });
  });

  it('job.overdue: five rotating inspections per pass, cursor survives a restart, only inspected jobs resolve', async () => {
    env = openMonitorDb();
    const now = env.clock.now();
    const due = new Map<string, number | null>(Array.from({ length: 7 }, (_, i) => [`backup-schedule:p${i}`, now + MIN]));
    due.set('backup-schedule:p6', now - 20 * MIN); // overdue beyond the 15-minute grace
    const provider: JobProvider = {
      kind: 'backup-schedule',
      list: () => [...due.keys()].map((key) => ({ key, kind: 'backup-schedule', projectId: key.split(':')[1]! })),
      nextRunAt: (job) => due.get(job.key) ?? null,
    };
    const inspected: string[][] = [];
    const tracking: JobProvider = { ...provider, nextRunAt: (job, t) => (inspected.at(-1)!.push(job.key), provider.nextRunAt(job, t)) };
    const sent: OperationalAlert[] = [];
    const run = async (m: ReturnType<typeof monitor>) => {
      inspected.push([]);
      return m.runOnce();
    };
    let m = monitor({ jobs: [tracking], jobGraceMs: 15 * MIN }, sent);
    // 8 jobs in key order: alert-delivery, backup-schedule:p0 … p6.
    expect(await run(m)).toMatchObject({ jobs: 5, opened: 0 });
    expect(inspected[0]).toEqual(['backup-schedule:p0', 'backup-schedule:p1', 'backup-schedule:p2', 'backup-schedule:p3']); // + alert-delivery
    // Restart: a new monitor on the same database continues after the persisted cursor.
    m = monitor({ jobs: [tracking], jobGraceMs: 15 * MIN }, sent);
    expect(await run(m)).toMatchObject({ jobs: 5, opened: 1 });
    expect(inspected[1]).toEqual(['backup-schedule:p4', 'backup-schedule:p5', 'backup-schedule:p6', 'backup-schedule:p0']); // wrapped past alert-delivery
    expect(sent[0]).toMatchObject({
      kind: 'job.overdue',
      projectId: 'p6',
      details: { job: 'backup-schedule', jobKey: 'backup-schedule:p6', overdueMs: 20 * MIN },
    });
    due.set('backup-schedule:p6', now + 60 * MIN); // the scheduler caught up
    // Passes that do not inspect p6 leave its incident open.
    expect(await run(m)).toMatchObject({ resolved: 0 });
    expect(inspected[2]).not.toContain('backup-schedule:p6');
    expect(await run(m)).toMatchObject({ resolved: 1 });
    expect(inspected[3]).toContain('backup-schedule:p6');
    expect(sent.map((a) => a.transition)).toEqual(['open', 'resolve']);
  });
});

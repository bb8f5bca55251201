import { afterEach, describe, expect, it } from 'vitest';
import type { OperationalAlert } from '../../../src/ops/monitor/incident-store.js';
import type { Condition } from '../../../src/ops/monitor/incident-transitions.js';
import { alertBackoffMs } from '../../../src/ops/monitor/alert-delivery.js';
import { applyIncidentPlan, claimDueNotifications } from '../../../src/ops/monitor/incident-store.js';
import { createOperationsMonitor, PROJECTS_PER_PASS } from '../../../src/ops/monitor/operations-monitor.js';
import { SvcError } from '../../../src/core/errors.js';
import { openMonitorDb } from './monitor-db.js';

describe('operations monitor', () => {
  let env: ReturnType<typeof openMonitorDb> | undefined;
  afterEach(() => env?.close());

  function setup(notify: (alert: OperationalAlert, signal: AbortSignal) => Promise<void>, projects: string[] = ['p1']) {
    env = openMonitorDb();
    const active = new Map<string, Condition>();
    const scannedPages: number[] = [];
    const monitor = createOperationsMonitor({
      db: env.db,
      clock: env.clock,
      ids: env.ids,
      intervalMs: false,
      usageWarningPercent: 80,
      notify,
      listProjects: (after, limit) => {
        const page = projects.filter((p) => p > after).slice(0, limit);
        scannedPages.push(page.length);
        return page;
      },
      sources: [(ids) => [...active.values()].filter((c) => c.projectId === null || ids.includes(c.projectId))],
      leaseMs: 5000,
    });
    return { monitor, active, scannedPages };
  }

  it('persists open/resolve transitions with stable ids; a resolution never overtakes its undelivered opening', async () => {
    const sent: OperationalAlert[] = [];
    let failing = true;
    const { monitor, active } = setup(async (alert) => {
      if (failing) throw new Error('receiver down');
      sent.push(alert);
    });
    active.set('deployment.failed:p1', { key: 'deployment.failed:p1', kind: 'deployment.failed', projectId: 'p1', details: { releaseId: 'rel_1' } });
    expect(await monitor.runOnce()).toMatchObject({ opened: 1, delivered: 0, failed: 1 });
    active.clear();
    // The condition cleared while the opening is still undelivered: the resolution is recorded but waits.
    env!.clock.advance(alertBackoffMs(1, 300_000));
    failing = false;
    const attemptsBefore = (env!.db.prepare('SELECT COUNT(*) AS n FROM ops_notification_attempts').get() as { n: number }).n;
    expect(attemptsBefore).toBe(1);
    const second = await monitor.runOnce();
    expect(second).toMatchObject({ resolved: 1, delivered: 2 });
    expect(sent.map((a) => [a.transition, a.id])).toEqual([
      ['open', `${sent[0]!.incidentId}.open`],
      ['resolve', `${sent[0]!.incidentId}.resolve`],
    ]);
    expect(await monitor.runOnce()).toMatchObject({ opened: 0, resolved: 0, delivered: 0 });
    const overview = monitor.overview();
    expect(overview.incidents[0]).toMatchObject({ kind: 'deployment.failed', resolvedAt: expect.any(String) });
    expect(overview.notifications).toHaveLength(2);
  });

  it('retries with exponential backoff and redelivers the same alert id (at-least-once)', async () => {
    const seen: string[] = [];
    let failures = 3;
    const { monitor, active } = setup(async (alert) => {
      seen.push(alert.id);
      if (failures-- > 0) throw new Error('503');
    });
    active.set('backup.overdue:p1', { key: 'backup.overdue:p1', kind: 'backup.overdue', projectId: 'p1', details: {} });
    await monitor.runOnce();
    expect(seen).toHaveLength(1);
    for (const attempts of [1, 2, 3]) {
      env!.clock.advance(alertBackoffMs(attempts, 300_000) - 1);
      await monitor.runOnce();
      expect(seen).toHaveLength(attempts); // not yet due
      env!.clock.advance(1);
      await monitor.runOnce();
      expect(seen).toHaveLength(attempts + 1);
    }
    expect(new Set(seen).size).toBe(1);
    expect([alertBackoffMs(1, 300_000), alertBackoffMs(2, 300_000), alertBackoffMs(3, 300_000), alertBackoffMs(30, 300_000)]).toEqual([
      1000, 2000, 4000, 300_000,
    ]);
    const rows = env!.db.prepare('SELECT ok FROM ops_notification_attempts ORDER BY attempt').all() as { ok: number }[];
    expect(rows.map((r) => r.ok)).toEqual([0, 0, 0, 1]);
  });

  it('aborts a hanging notify on timeout (the signal is honoured)', async () => {
    let calls = 0;
    const { monitor, active } = setup(
      (_alert, signal) =>
        new Promise((_resolve, reject) => {
          calls++;
          signal.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    );
    active.set('x:p1', { key: 'x:p1', kind: 'x', projectId: 'p1', details: {} });
    // leaseMs is 5000 → the per-call timeout is capped at the lease.
    const started = Date.now();
    expect(await monitor.runOnce()).toMatchObject({ failed: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(4000);
    expect(calls).toBe(1);
    const row = env!.db.prepare('SELECT lease_until, last_error FROM ops_notifications').get() as { lease_until: number | null; last_error: string };
    expect(row).toEqual({ lease_until: null, last_error: 'aborted' });
  }, 20_000);

  it('leases: a claimed notification is not claimed again until its lease expires', () => {
    env = openMonitorDb();
    applyIncidentPlan(env.db, { open: [{ key: 'x:p1', kind: 'x', projectId: 'p1', details: {} }], resolve: [] }, env.clock.now(), env.ids);
    expect(claimDueNotifications(env.db, env.clock.now(), 1000, 10)).toHaveLength(1);
    expect(claimDueNotifications(env.db, env.clock.now() + 999, 1000, 10)).toHaveLength(0);
    expect(claimDueNotifications(env.db, env.clock.now() + 1000, 1000, 10)).toHaveLength(1);
  });

  it('examines at most 1,000 projects per pass and continues with the next page', async () => {
    const projects = Array.from({ length: PROJECTS_PER_PASS + 5 }, (_, i) => `p${String(i).padStart(5, '0')}`);
    const { monitor, scannedPages } = setup(async () => undefined, projects);
    expect((await monitor.runOnce()).projects).toBe(1000);
    expect((await monitor.runOnce()).projects).toBe(5);
    expect((await monitor.runOnce()).projects).toBe(1000);
    expect(Math.max(...scannedPages)).toBeLessThanOrEqual(1000);
  });

  it('validates its options', () => {
    env = openMonitorDb();
    const base = { db: env.db, clock: env.clock, ids: env.ids, notify: async () => undefined, sources: [] };
    expect(() => createOperationsMonitor({ ...base, intervalMs: 10, usageWarningPercent: 80 })).toThrow(SvcError);
    expect(() => createOperationsMonitor({ ...base, intervalMs: false, usageWarningPercent: 0 })).toThrow(SvcError);
  });
});

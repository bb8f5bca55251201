import type { ControlDb } from '../../core/control-db.js';
import type { IdGenerator } from '../../core/ids.js';
import type { Condition, IncidentPlan, OpenIncident } from './incident-transitions.js';

/** What `notify(alert, signal)` receives; receivers deduplicate by `id`. */
export interface OperationalAlert {
  /** Stable across retries: `<incident id>.open` or `<incident id>.resolve`. */
  id: string;
  kind: string;
  transition: 'open' | 'resolve';
  incidentId: string;
  projectId: string | null;
  /** ISO time of the transition. */
  at: string;
  details: Record<string, unknown>;
}

/** One notification row. */
export interface NotificationRow {
  alert_id: string;
  incident_id: string;
  transition: 'open' | 'resolve';
  payload: string;
  status: 'pending' | 'delivered';
  attempts: number;
  next_attempt_at: number;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

/** Open incidents (optionally of the given keys only). */
export function listOpenIncidents(db: ControlDb): OpenIncident[] {
  return db.prepare('SELECT id, key, project_id AS projectId FROM ops_incidents WHERE resolved_at IS NULL ORDER BY opened_at, id').all() as OpenIncident[];
}

function alertFor(incidentId: string, c: Pick<Condition, 'kind' | 'projectId' | 'details'>, transition: 'open' | 'resolve', now: number): OperationalAlert {
  return {
    id: `${incidentId}.${transition}`,
    kind: c.kind,
    transition,
    incidentId,
    projectId: c.projectId,
    at: new Date(now).toISOString(),
    details: c.details,
  };
}

/** Persist a plan in one transaction: each transition with its pending notification. */
export function applyIncidentPlan(db: ControlDb, plan: IncidentPlan, now: number, ids: IdGenerator): OperationalAlert[] {
  const alerts: OperationalAlert[] = [];
  const insertNotification = db.prepare(
    `INSERT INTO ops_notifications (alert_id, incident_id, transition, payload, status, next_attempt_at, created_at) VALUES (?, ?, ?, ?, 'pending', ?, ?)`,
  );
  db.transaction(() => {
    for (const c of plan.open) {
      const id = ids('inc');
      db.prepare('INSERT INTO ops_incidents (id, key, kind, project_id, details, opened_at) VALUES (?, ?, ?, ?, ?, ?)').run(
        id,
        c.key,
        c.kind,
        c.projectId,
        JSON.stringify(c.details),
        now,
      );
      const alert = alertFor(id, c, 'open', now);
      insertNotification.run(alert.id, id, 'open', JSON.stringify(alert), now, now);
      alerts.push(alert);
    }
    for (const i of plan.resolve) {
      const row = db.prepare('SELECT kind, project_id, details FROM ops_incidents WHERE id = ? AND resolved_at IS NULL').get(i.id) as
        { kind: string; project_id: string | null; details: string } | undefined;
      if (!row) continue;
      db.prepare('UPDATE ops_incidents SET resolved_at = ? WHERE id = ?').run(now, i.id);
      const alert = alertFor(i.id, { kind: row.kind, projectId: row.project_id, details: JSON.parse(row.details) as Record<string, unknown> }, 'resolve', now);
      insertNotification.run(alert.id, i.id, 'resolve', JSON.stringify(alert), now, now);
      alerts.push(alert);
    }
  })();
  return alerts;
}

/**
 * Lease due notifications, oldest first. A resolution is never due while its incident's opening
 * notification is undelivered, so it cannot overtake it.
 */
export function claimDueNotifications(db: ControlDb, now: number, leaseMs: number, limit: number): NotificationRow[] {
  return db.transaction(() => {
    const rows = db
      .prepare(
        `SELECT n.* FROM ops_notifications n WHERE n.status = 'pending' AND n.next_attempt_at <= ? AND (n.lease_until IS NULL OR n.lease_until <= ?)
           AND (n.transition = 'open' OR NOT EXISTS (SELECT 1 FROM ops_notifications o WHERE o.incident_id = n.incident_id AND o.transition = 'open' AND o.status <> 'delivered'))
         ORDER BY n.created_at, n.transition = 'resolve', n.alert_id LIMIT ?`,
      )
      .all(now, now, limit) as NotificationRow[];
    const lease = db.prepare('UPDATE ops_notifications SET lease_until = ? WHERE alert_id = ?');
    for (const r of rows) lease.run(now + leaseMs, r.alert_id);
    return rows;
  })();
}

/** Record one attempt and its outcome (delivered, or pending again at `nextAttemptAt`). */
export function recordAttempt(
  db: ControlDb,
  row: NotificationRow,
  startedAt: number,
  outcome: { ok: true; now: number } | { ok: false; error: string; nextAttemptAt: number },
): void {
  db.transaction(() => {
    const attempt = row.attempts + 1;
    db.prepare('INSERT INTO ops_notification_attempts (alert_id, attempt, started_at, ok, error) VALUES (?, ?, ?, ?, ?)').run(
      row.alert_id,
      attempt,
      startedAt,
      outcome.ok ? 1 : 0,
      outcome.ok ? null : outcome.error.slice(0, 500),
    );
    if (outcome.ok)
      db.prepare(
        "UPDATE ops_notifications SET status = 'delivered', attempts = ?, lease_until = NULL, delivered_at = ?, last_error = NULL WHERE alert_id = ?",
      ).run(attempt, outcome.now, row.alert_id);
    else
      db.prepare('UPDATE ops_notifications SET attempts = ?, lease_until = NULL, next_attempt_at = ?, last_error = ? WHERE alert_id = ?').run(
        attempt,
        outcome.nextAttemptAt,
        outcome.error.slice(0, 500),
        row.alert_id,
      );
  })();
}

/** Monitor state for the admin route. */
export function readMonitorOverview(db: ControlDb, limit = 50) {
  const incidents = db
    .prepare(
      'SELECT id, key, kind, project_id AS projectId, details, opened_at AS openedAt, resolved_at AS resolvedAt FROM ops_incidents ORDER BY opened_at DESC, id DESC LIMIT ?',
    )
    .all(limit) as { details: string; openedAt: number; resolvedAt: number | null }[];
  const notifications = db
    .prepare(
      'SELECT alert_id AS alertId, transition, status, attempts, next_attempt_at AS nextAttemptAt, last_error AS lastError, delivered_at AS deliveredAt FROM ops_notifications ORDER BY created_at DESC, alert_id DESC LIMIT ?',
    )
    .all(limit);
  const row = db.prepare('SELECT last_pass_at AS lastPassAt, last_pass AS lastPass FROM ops_monitor_state WHERE id = 1').get() as
    { lastPassAt: number | null; lastPass: string | null } | undefined;
  // The row may exist with only the job cursor (before the first recorded pass).
  const state = row && row.lastPassAt !== null && row.lastPass !== null ? { lastPassAt: row.lastPassAt, lastPass: row.lastPass } : undefined;
  return {
    lastPassAt: state ? new Date(state.lastPassAt).toISOString() : null,
    lastPass: state ? (JSON.parse(state.lastPass) as unknown) : null,
    incidents: incidents.map((i) => ({
      ...i,
      details: JSON.parse(i.details) as unknown,
      openedAt: new Date(i.openedAt).toISOString(),
      resolvedAt: i.resolvedAt === null ? null : new Date(i.resolvedAt).toISOString(),
    })),
    notifications,
  };
}

/** Remember the summary of the latest pass. */
export function recordPass(db: ControlDb, now: number, summary: unknown): void {
  db.prepare(
    'INSERT INTO ops_monitor_state (id, last_pass_at, last_pass) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET last_pass_at = excluded.last_pass_at, last_pass = excluded.last_pass',
  ).run(now, JSON.stringify(summary));
}

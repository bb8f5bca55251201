import type { Migration } from '../../core/db-migrations.js';

/**
 * Monitor tables: incidents (open → resolved), one notification per transition (stable alert
 * id, leased delivery with backoff) and every delivery attempt.
 */
export const monitorMigrations: readonly Migration[] = [
  {
    scope: 'ops-monitor',
    version: 1,
    name: 'incidents, notifications, attempts',
    up(db) {
      db.exec(`
        CREATE TABLE ops_incidents (
          id TEXT PRIMARY KEY, key TEXT NOT NULL, kind TEXT NOT NULL, project_id TEXT,
          details TEXT NOT NULL, opened_at INTEGER NOT NULL, resolved_at INTEGER) STRICT;
        CREATE UNIQUE INDEX ops_incidents_open_key ON ops_incidents (key) WHERE resolved_at IS NULL;
        CREATE TABLE ops_notifications (
          alert_id TEXT PRIMARY KEY, incident_id TEXT NOT NULL REFERENCES ops_incidents(id),
          transition TEXT NOT NULL CHECK (transition IN ('open', 'resolve')), payload TEXT NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('pending', 'delivered')), attempts INTEGER NOT NULL DEFAULT 0,
          next_attempt_at INTEGER NOT NULL, lease_until INTEGER, last_error TEXT,
          created_at INTEGER NOT NULL, delivered_at INTEGER) STRICT;
        CREATE INDEX ops_notifications_due ON ops_notifications (status, next_attempt_at);
        CREATE TABLE ops_notification_attempts (
          alert_id TEXT NOT NULL REFERENCES ops_notifications(alert_id), attempt INTEGER NOT NULL,
          started_at INTEGER NOT NULL, ok INTEGER NOT NULL, error TEXT, PRIMARY KEY (alert_id, attempt)) STRICT;
        CREATE TABLE ops_monitor_state (id INTEGER PRIMARY KEY CHECK (id = 1), last_pass_at INTEGER, last_pass TEXT) STRICT;`);
    },
  },
  {
    scope: 'ops-monitor',
    version: 2,
    name: 'job inspection cursor, condition first-seen times',
    up(db) {
      // job_cursor: key of the last inspected job (rotation survives restarts);
      // ops_condition_since: when a graced condition (e.g. an unhealthy app) was first seen.
      db.exec(`
        ALTER TABLE ops_monitor_state ADD COLUMN job_cursor TEXT;
        CREATE TABLE ops_condition_since (key TEXT PRIMARY KEY, project_id TEXT, since INTEGER NOT NULL) STRICT;`);
    },
  },
];

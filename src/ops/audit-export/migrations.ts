import type { Migration } from '../../core/db-migrations.js';

/**
 * Audit export outbox: every signed entry is stored before delivery (retries resend these exact
 * rows); the single state row holds the acknowledged checkpoint and the delivery backoff.
 */
export const auditExportMigrations: readonly Migration[] = [
  {
    scope: 'ops-audit-export',
    version: 1,
    name: 'audit export outbox and checkpoint',
    up(db) {
      db.exec(`
        CREATE TABLE audit_export_outbox (
          sequence INTEGER PRIMARY KEY, digest TEXT NOT NULL, key_id TEXT NOT NULL,
          entry TEXT NOT NULL, signed_at INTEGER NOT NULL) STRICT;
        CREATE TABLE audit_export_state (
          id INTEGER PRIMARY KEY CHECK (id = 1), checkpoint_sequence INTEGER NOT NULL, checkpoint_digest TEXT NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER, last_attempt_at INTEGER,
          last_success_at INTEGER, last_error TEXT) STRICT;
        CREATE TRIGGER audit_export_outbox_no_update BEFORE UPDATE ON audit_export_outbox
          BEGIN SELECT RAISE(ABORT, 'signed export entries are immutable'); END;`);
    },
  },
];

import type { Migration } from '../core/db-migrations.js';

const appendOnlyTriggers = `
  CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
  CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
  CREATE TRIGGER audit_events_org_required BEFORE INSERT ON audit_events WHEN NEW.organization_id IS NULL
    BEGIN SELECT RAISE(ABORT, 'audit events need organization attribution'); END;`;

/**
 * Audit tables. Version 1 is the original layout without organization attribution; version 2
 * adds it in place and backfills it from live project rows, then from recorded metadata
 * (`organizationId` in create/delete events), and makes the log append-only with triggers.
 */
export const auditMigrations: readonly Migration[] = [
  {
    scope: 'audit',
    version: 1,
    name: 'audit events',
    up(db) {
      db.exec(`
        CREATE TABLE audit_events (
          seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
          project_id TEXT, actor_type TEXT NOT NULL, actor_id TEXT NOT NULL, actor_name TEXT,
          metadata TEXT NOT NULL, created_at INTEGER NOT NULL);
        CREATE INDEX audit_events_project ON audit_events (project_id, seq);`);
    },
  },
  {
    scope: 'audit',
    version: 2,
    name: 'organization attribution with backfill, append-only triggers',
    up(db) {
      db.exec('ALTER TABLE audit_events ADD COLUMN organization_id TEXT');
      const hasProjects = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'projects'").get() !== undefined;
      if (hasProjects) {
        db.exec(`UPDATE audit_events SET organization_id = (SELECT p.organization_id FROM projects p WHERE p.id = audit_events.project_id)
                 WHERE organization_id IS NULL AND project_id IS NOT NULL`);
      }
      db.exec(`UPDATE audit_events SET organization_id = json_extract(metadata, '$.organizationId')
               WHERE organization_id IS NULL AND json_valid(metadata) AND json_type(metadata, '$.organizationId') = 'text'`);
      // Events of deleted projects whose delete event recorded the organization.
      db.exec(`UPDATE audit_events SET organization_id = (
                 SELECT d.organization_id FROM audit_events d WHERE d.project_id = audit_events.project_id AND d.organization_id IS NOT NULL ORDER BY d.seq DESC LIMIT 1)
               WHERE organization_id IS NULL AND project_id IS NOT NULL`);
      db.exec(`CREATE INDEX audit_events_org ON audit_events (organization_id, seq); ${appendOnlyTriggers}`);
    },
  },
];

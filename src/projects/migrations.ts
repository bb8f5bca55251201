import type { Migration } from '../core/db-migrations.js';

/** Project tables. Organization rows belong to identity; the foreign key keeps attribution honest. */
export const projectsMigrations: readonly Migration[] = [
  {
    scope: 'projects',
    version: 1,
    name: 'projects',
    up(db) {
      db.exec(`
        CREATE TABLE projects (
          id TEXT PRIMARY KEY, slug TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
          organization_id TEXT NOT NULL REFERENCES organizations(id),
          state TEXT NOT NULL DEFAULT 'new', active_release_id TEXT,
          created_by TEXT, created_at INTEGER NOT NULL) STRICT;
        CREATE INDEX projects_org ON projects (organization_id);`);
    },
  },
  {
    scope: 'projects',
    version: 2,
    name: 'project sandbox uids',
    up(db) {
      // Never deleted with the project, so a uid is never handed to a second project.
      db.exec(`
        CREATE TABLE project_uids (
          project_id TEXT PRIMARY KEY, uid INTEGER NOT NULL UNIQUE, created_at INTEGER NOT NULL) STRICT;`);
    },
  },
  {
    scope: 'projects',
    version: 3,
    name: 'preview projects',
    up(db) {
      // A pull request's preview is a project of its own, listed under its production project only.
      db.exec('ALTER TABLE projects ADD COLUMN preview_of TEXT REFERENCES projects(id)');
    },
  },
];

import type { Migration } from '../core/db-migrations.js';

/**
 * Preview tables. A preview is a project of its own (its releases, data, logs and host); this row ties
 * it to the pull request and the production project it previews. Deleting either project removes it.
 */
export const previewsMigrations: readonly Migration[] = [
  {
    scope: 'previews',
    version: 1,
    name: 'previews',
    up(db) {
      db.exec(`
        CREATE TABLE previews (
          project_id TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
          parent_project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
          number INTEGER NOT NULL, title TEXT NOT NULL, author TEXT, head_ref TEXT NOT NULL, head_sha TEXT NOT NULL,
          data_source TEXT NOT NULL CHECK (data_source IN ('empty', 'production')),
          asleep INTEGER NOT NULL DEFAULT 0, last_request_at INTEGER,
          candidate_release_id TEXT, candidate_sha TEXT, serving_sha TEXT,
          created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
          UNIQUE (parent_project_id, number)) STRICT;
        CREATE TABLE preview_settings (
          project_id TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
          data_source TEXT NOT NULL CHECK (data_source IN ('empty', 'production')),
          updated_at INTEGER NOT NULL) STRICT;`);
    },
  },
];

// Control-database tables of the GitHub integration. Only src/github touches them.
import type { Migration } from '../core/db-migrations.js';

/** Tables: durable job queue + delivery dedupe, installations, links, commits, check runs, deployments, commands, pull requests. */
export const githubMigrations: readonly Migration[] = [
  {
    scope: 'github',
    version: 1,
    name: 'github queue, installations, links, commits, checks, deployments, commands',
    up(db) {
      db.exec(`
        CREATE TABLE github_deliveries (
          delivery_id TEXT PRIMARY KEY,
          event TEXT NOT NULL,
          received_at INTEGER NOT NULL) STRICT;
        CREATE TABLE github_jobs (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          kind TEXT NOT NULL,
          lane TEXT NOT NULL,
          dedupe_key TEXT UNIQUE,
          payload TEXT NOT NULL,
          state TEXT NOT NULL CHECK (state IN ('pending','done','dead')),
          attempts INTEGER NOT NULL DEFAULT 0,
          run_at INTEGER NOT NULL,
          last_error TEXT,
          created_at INTEGER NOT NULL,
          finished_at INTEGER) STRICT;
        CREATE INDEX github_jobs_pending ON github_jobs (state, run_at);
        CREATE TABLE github_installations (
          id INTEGER PRIMARY KEY,
          account_login TEXT NOT NULL,
          account_type TEXT,
          status TEXT NOT NULL CHECK (status IN ('active','suspended','deleted')),
          repository_selection TEXT,
          updated_at INTEGER NOT NULL) STRICT;
        CREATE TABLE github_installation_repos (
          installation_id INTEGER NOT NULL REFERENCES github_installations(id) ON DELETE CASCADE,
          repository_id INTEGER NOT NULL,
          full_name TEXT NOT NULL,
          PRIMARY KEY (installation_id, repository_id)) STRICT;
        CREATE TABLE github_links (
          project_id TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
          repository_id INTEGER NOT NULL,
          full_name TEXT NOT NULL,
          branch TEXT NOT NULL,
          installation_id INTEGER NOT NULL,
          rollback_permission TEXT NOT NULL CHECK (rollback_permission IN ('write','admin')),
          environment TEXT NOT NULL,
          created_by TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          UNIQUE (repository_id, branch)) STRICT;
        CREATE TABLE github_commits (
          project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
          sha TEXT NOT NULL,
          seq INTEGER NOT NULL,
          state TEXT NOT NULL CHECK (state IN ('waiting','releasing','released','failed','superseded','timed_out')),
          release_id TEXT,
          superseded_by TEXT,
          deadline_at INTEGER,
          pushed_at INTEGER NOT NULL,
          PRIMARY KEY (project_id, sha)) STRICT;
        CREATE TABLE github_release_sources (
          release_id TEXT PRIMARY KEY,
          project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
          sha TEXT NOT NULL,
          repository_id INTEGER) STRICT;
        CREATE TABLE github_checks (
          id TEXT PRIMARY KEY,
          project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
          full_name TEXT NOT NULL,
          installation_id INTEGER NOT NULL,
          sha TEXT NOT NULL,
          name TEXT NOT NULL,
          release_id TEXT,
          model TEXT NOT NULL,
          completed INTEGER NOT NULL DEFAULT 0,
          version INTEGER NOT NULL DEFAULT 1,
          synced_version INTEGER NOT NULL DEFAULT 0,
          check_run_id INTEGER,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL) STRICT;
        CREATE INDEX github_checks_release ON github_checks (release_id);
        CREATE INDEX github_checks_sha ON github_checks (project_id, sha, name);
        CREATE TABLE github_deployments (
          release_id TEXT PRIMARY KEY,
          project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
          full_name TEXT NOT NULL,
          installation_id INTEGER NOT NULL,
          sha TEXT NOT NULL,
          environment TEXT NOT NULL,
          deployment_id INTEGER,
          statuses TEXT NOT NULL,
          posted INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL) STRICT;
        CREATE TABLE github_commands (
          comment_id INTEGER PRIMARY KEY,
          state TEXT NOT NULL CHECK (state IN ('received','executing','done')),
          outcome TEXT,
          reply_id INTEGER,
          reacted INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL) STRICT;`);
    },
  },
  {
    scope: 'github',
    version: 2,
    name: 'github pull requests (preview comment) and transient deployments',
    up(db) {
      // One row per pull request of a linked branch: its head, the preview comment as svc wants it
      // (model, version) and what GitHub has (comment id, synced version). Keyed by the linked project,
      // which outlives the preview project.
      db.exec(`
        CREATE TABLE github_pull_requests (
          project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
          number INTEGER NOT NULL,
          full_name TEXT NOT NULL,
          installation_id INTEGER NOT NULL,
          html_url TEXT NOT NULL,
          head_sha TEXT NOT NULL,
          comment TEXT NOT NULL,
          comment_id INTEGER,
          version INTEGER NOT NULL DEFAULT 1,
          synced_version INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          PRIMARY KEY (project_id, number)) STRICT;
        ALTER TABLE github_deployments ADD COLUMN transient INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE github_deployments ADD COLUMN description TEXT;
        ALTER TABLE github_deployments ADD COLUMN payload TEXT;`);
    },
  },
];

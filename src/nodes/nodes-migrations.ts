// Control tables of runner nodes: registration tokens and node credentials (hashes only), placements,
// per-project desired state with its monotonic fence, and provider operations with their leases.
import type { Migration } from '../core/db-migrations.js';

/** Every control-database migration of src/nodes (after projects and releases). */
export const nodesMigrations: readonly Migration[] = [
  {
    scope: 'nodes',
    version: 1,
    name: 'nodes, registration tokens, placements, desired generations, operations',
    up(db) {
      db.exec(`
        CREATE TABLE node_registration_tokens (
          token_hash TEXT PRIMARY KEY, created_by TEXT NOT NULL, organization_id TEXT,
          created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, used_at INTEGER, used_by_node TEXT
        ) STRICT;
        CREATE TABLE nodes (
          id TEXT PRIMARY KEY, credential_hash TEXT NOT NULL UNIQUE, region TEXT NOT NULL,
          capacity INTEGER NOT NULL, concurrency INTEGER NOT NULL, labels TEXT NOT NULL,
          draining INTEGER NOT NULL DEFAULT 0, enrolled_at INTEGER NOT NULL, last_seen_at INTEGER
        ) STRICT;
        CREATE TABLE node_placements (
          project_id TEXT PRIMARY KEY, node_id TEXT NOT NULL REFERENCES nodes (id), placed_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX node_placements_node ON node_placements (node_id);
        CREATE TABLE node_desired (
          project_id TEXT PRIMARY KEY, generation INTEGER NOT NULL, state TEXT NOT NULL, release_id TEXT,
          fence INTEGER NOT NULL,
          observed_kind TEXT, observed_generation INTEGER, observed_release_id TEXT, observed_state TEXT, observed_at INTEGER
        ) STRICT;
        CREATE TABLE node_operations (
          id TEXT PRIMARY KEY, project_id TEXT NOT NULL, node_id TEXT NOT NULL,
          generation INTEGER NOT NULL, state TEXT NOT NULL, release_id TEXT, artifact_sha256 TEXT,
          fence INTEGER NOT NULL, status TEXT NOT NULL, lease_expires_at INTEGER, attempts INTEGER NOT NULL DEFAULT 0,
          error_code TEXT, created_at INTEGER NOT NULL, finished_at INTEGER
        ) STRICT;
        CREATE INDEX node_operations_project ON node_operations (project_id, created_at);
        CREATE INDEX node_operations_node ON node_operations (node_id, status);`);
    },
  },
  {
    scope: 'nodes',
    version: 2,
    name: 'operations handed back after a transient failure wait until retry_at',
    up(db) {
      db.exec('ALTER TABLE node_operations ADD COLUMN retry_at INTEGER');
    },
  },
  {
    scope: 'nodes',
    version: 3,
    name: 'running operations of a rollback carry its intent (JSON: restoreData, fromReleaseId)',
    up(db) {
      db.exec('ALTER TABLE node_operations ADD COLUMN rollback TEXT');
    },
  },
  {
    scope: 'nodes',
    version: 4,
    name: 'running operations of a canary stage their release beside the baseline (1) instead of switching',
    up(db) {
      db.exec('ALTER TABLE node_operations ADD COLUMN canary INTEGER NOT NULL DEFAULT 0');
    },
  },
];

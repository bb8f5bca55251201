import type { ControlDb } from './control-db.js';
import { SvcError } from './errors.js';

/** One schema step of one feature; `scope` is the feature name, versions count up from 1 per scope. */
export interface Migration {
  readonly scope: string;
  readonly version: number;
  readonly name: string;
  up(db: ControlDb): void;
}

/** Versions already applied, per scope. */
export type AppliedVersions = ReadonlyMap<string, number>;

/**
 * Pure planning: which migrations are pending, in list order. Rejects a list that is not
 * ordered 1, 2, 3… per scope, and a database ahead of this code (written by a newer svc).
 */
export function planMigrations(applied: AppliedVersions, migrations: readonly Migration[]): Migration[] {
  const expected = new Map<string, number>();
  for (const m of migrations) {
    const next = (expected.get(m.scope) ?? 0) + 1;
    if (m.version !== next) throw new Error(`migration ${m.scope}#${m.version} (${m.name}) is out of order; expected version ${next}`);
    expected.set(m.scope, next);
  }
  for (const [scope, version] of applied) {
    const known = expected.get(scope) ?? 0;
    if (version > known) {
      throw new SvcError('SVC_DB_SCHEMA_TOO_NEW', `The control database has ${scope} schema version ${version}, this svc knows up to ${known}.`);
    }
  }
  return migrations.filter((m) => m.version > (applied.get(m.scope) ?? 0));
}

/** Read the applied version of every scope from the schema_version table (creating it if missing). */
export function readAppliedVersions(db: ControlDb): Map<string, number> {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_version (
    scope TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at INTEGER NOT NULL,
    PRIMARY KEY (scope, version)) STRICT`);
  const rows = db.prepare('SELECT scope, MAX(version) AS version FROM schema_version GROUP BY scope').all() as { scope: string; version: number }[];
  return new Map(rows.map((r) => [r.scope, r.version]));
}

/** Apply every pending migration, each in its own transaction together with its schema_version row. */
export function applyMigrations(db: ControlDb, migrations: readonly Migration[], now: () => number = Date.now): Migration[] {
  const pending = planMigrations(readAppliedVersions(db), migrations);
  const record = db.prepare('INSERT INTO schema_version (scope, version, name, applied_at) VALUES (?, ?, ?, ?)');
  for (const m of pending) {
    try {
      db.transaction(() => {
        m.up(db);
        record.run(m.scope, m.version, m.name, now());
      }).immediate();
    } catch (error) {
      throw new SvcError('SVC_DB_MIGRATION_FAILED', `Migration ${m.scope}#${m.version} (${m.name}) failed and was rolled back: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  return pending;
}

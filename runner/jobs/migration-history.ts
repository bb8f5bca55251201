// Pure comparison of a release's migration files with the applied-history table.
import { SvcError } from '../../src/core/errors.js';
import type { MigrationFile } from './migration-files.js';

/** One row of `_svc_migrations(version, name, checksum, applied_at)`. */
export interface AppliedMigration {
  version: number;
  name: string;
  checksum: string;
  appliedAt: number;
}

/**
 * The files still to apply, in order. History is immutable: every applied migration must still be
 * present with the same name and checksum, and a new file must be numbered above the last applied.
 */
export function planMigrations(files: readonly MigrationFile[], applied: readonly AppliedMigration[]): MigrationFile[] {
  const byVersion = new Map(files.map((f) => [f.version, f]));
  let lastApplied = 0;
  for (const row of applied) {
    lastApplied = Math.max(lastApplied, row.version);
    const file = byVersion.get(row.version);
    if (!file) {
      throw new SvcError('SVC_MIGRATION_MISSING', `Applied migration ${row.name} is missing from the release`, { details: { file: row.name } });
    }
    if (file.name !== row.name || file.checksum !== row.checksum) {
      const what = file.name !== row.name ? `was renamed to ${file.name}` : 'was edited after it was applied';
      throw new SvcError('SVC_MIGRATION_HISTORY_EDITED', `Migration ${row.name} ${what}`, {
        details: { file: row.name, expectedChecksum: row.checksum, actualChecksum: file.checksum },
      });
    }
  }
  const done = new Set(applied.map((r) => r.version));
  const pending = files.filter((f) => !done.has(f.version)).sort((a, b) => a.version - b.version);
  const early = pending.find((f) => f.version < lastApplied);
  if (early) {
    throw new SvcError('SVC_MIGRATION_OUT_OF_ORDER', `Migration ${early.name} is numbered below the last applied version ${lastApplied}`, {
      details: { file: early.name, lastApplied },
    });
  }
  return pending;
}

// A real control database in a temp dir with the monitor and drill tables, for monitor tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manualClock } from '../../../src/core/clock.js';
import { openControlDb, type ControlDb } from '../../../src/core/control-db.js';
import { applyMigrations } from '../../../src/core/db-migrations.js';
import { sequentialIds } from '../../../src/core/ids.js';
import { drillMigrations } from '../../../src/ops/drills/drill-store.js';
import { monitorMigrations } from '../../../src/ops/monitor/migrations.js';

/** Open a temp control database with the monitor migrations. */
export function openMonitorDb(): { db: ControlDb; clock: ReturnType<typeof manualClock>; ids: ReturnType<typeof sequentialIds>; close(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ops-monitor-'));
  const db = openControlDb(join(dir, 'control.db'));
  const clock = manualClock(Date.parse('2026-03-01T12:00:00Z'));
  applyMigrations(db, [...monitorMigrations, ...drillMigrations], clock.now);
  return {
    db,
    clock,
    ids: sequentialIds(),
    close() {
      if (db.open) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

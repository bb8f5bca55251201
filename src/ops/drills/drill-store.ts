// Restore drill receipts in the control database (one row per drill run; never production data).
import type { Migration } from '../../core/db-migrations.js';
import type { ControlDb } from '../../core/control-db.js';
import type { DrillReceipt } from './next-due-drill.js';

/** A persisted drill receipt (the wire shape of `drills` in `GET /api/admin/operations`). */
export interface StoredDrillReceipt {
  id: string;
  projectId: string;
  /** The release whose code was booted on the restored copy. */
  releaseId: string | null;
  backupId: string;
  startedAt: number;
  finishedAt: number;
  outcome: DrillReceipt['outcome'];
  code: string | null;
  error: string | null;
  checks: DrillReceipt['checks'];
}

export const drillMigrations: readonly Migration[] = [
  {
    scope: 'ops-drills',
    version: 1,
    name: 'restore drill receipts',
    up(db) {
      db.exec(`
        CREATE TABLE ops_drill_receipts (
          id TEXT PRIMARY KEY, project_id TEXT NOT NULL, release_id TEXT, backup_id TEXT NOT NULL,
          started_at INTEGER NOT NULL, finished_at INTEGER NOT NULL,
          outcome TEXT NOT NULL CHECK (outcome IN ('passed', 'failed', 'setup-failed')),
          code TEXT, error TEXT, checks TEXT NOT NULL) STRICT;
        CREATE INDEX ops_drill_receipts_project ON ops_drill_receipts (project_id, started_at);`);
    },
  },
];

interface Row {
  id: string;
  project_id: string;
  release_id: string | null;
  backup_id: string;
  started_at: number;
  finished_at: number;
  outcome: DrillReceipt['outcome'];
  code: string | null;
  error: string | null;
  checks: string;
}

const toReceipt = (r: Row): StoredDrillReceipt => ({
  id: r.id,
  projectId: r.project_id,
  releaseId: r.release_id,
  backupId: r.backup_id,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  outcome: r.outcome,
  code: r.code,
  error: r.error,
  checks: JSON.parse(r.checks) as DrillReceipt['checks'],
});

/** Record a receipt (one statement: atomic). */
export function insertDrillReceipt(db: ControlDb, receipt: StoredDrillReceipt): void {
  db.prepare(
    'INSERT INTO ops_drill_receipts (id, project_id, release_id, backup_id, started_at, finished_at, outcome, code, error, checks) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(
    receipt.id,
    receipt.projectId,
    receipt.releaseId,
    receipt.backupId,
    receipt.startedAt,
    receipt.finishedAt,
    receipt.outcome,
    receipt.code,
    receipt.error === null ? null : receipt.error.slice(0, 1000),
    JSON.stringify(receipt.checks),
  );
}

/** The newest receipt of each of the given projects. */
export function latestDrillReceipts(db: ControlDb, projectIds: readonly string[]): StoredDrillReceipt[] {
  const out: StoredDrillReceipt[] = [];
  const stmt = db.prepare('SELECT * FROM ops_drill_receipts WHERE project_id = ? ORDER BY started_at DESC, id DESC LIMIT 1');
  for (const id of projectIds) {
    const row = stmt.get(id) as Row | undefined;
    if (row) out.push(toReceipt(row));
  }
  return out;
}

/** The newest receipts across projects (admin overview). */
export function listDrillReceipts(db: ControlDb, limit = 50): StoredDrillReceipt[] {
  return (db.prepare('SELECT * FROM ops_drill_receipts ORDER BY started_at DESC, id DESC LIMIT ?').all(limit) as Row[]).map(toReceipt);
}

/** The newest receipts in the wire shape of `drills` in `GET /api/admin/operations` (ISO times). */
export function drillOverview(db: ControlDb, limit = 50) {
  return listDrillReceipts(db, limit).map((r) => ({ ...r, startedAt: new Date(r.startedAt).toISOString(), finishedAt: new Date(r.finishedAt).toISOString() }));
}

import type { ControlDb } from '../../core/control-db.js';
import type { AuditEventRow } from './canonical-event.js';
import { GENESIS_DIGEST, type AuditExportCheckpoint, type AuditExportEntry } from './export-entry.js';

/** The export state row (checkpoint = last acknowledged entry). */
export interface ExportStateRow {
  checkpoint_sequence: number;
  checkpoint_digest: string;
  attempts: number;
  next_attempt_at: number | null;
  last_attempt_at: number | null;
  last_success_at: number | null;
  last_error: string | null;
}

/** Read the state row, creating the genesis row the first time. */
export function readExportState(db: ControlDb): ExportStateRow {
  db.prepare('INSERT OR IGNORE INTO audit_export_state (id, checkpoint_sequence, checkpoint_digest) VALUES (1, 0, ?)').run(GENESIS_DIGEST);
  return db
    .prepare(
      'SELECT checkpoint_sequence, checkpoint_digest, attempts, next_attempt_at, last_attempt_at, last_success_at, last_error FROM audit_export_state WHERE id = 1',
    )
    .get() as ExportStateRow;
}

/** The newest signed entry (sequence and digest), or genesis when nothing is signed yet. */
export function signedHead(db: ControlDb): AuditExportCheckpoint {
  const row = db.prepare('SELECT sequence, digest FROM audit_export_outbox ORDER BY sequence DESC LIMIT 1').get() as
    { sequence: number; digest: string } | undefined;
  return row ?? { sequence: 0, digest: GENESIS_DIGEST };
}

/** Audit rows after `afterSeq`, oldest first. */
export function auditRowsAfter(db: ControlDb, afterSeq: number, limit: number): AuditEventRow[] {
  return db
    .prepare(
      'SELECT seq, id, kind, organization_id, project_id, actor_type, actor_id, actor_name, metadata, created_at FROM audit_events WHERE seq > ? ORDER BY seq LIMIT ?',
    )
    .all(afterSeq, limit) as AuditEventRow[];
}

/** Store signed entries (caller holds the transaction). */
export function insertEntries(db: ControlDb, entries: readonly AuditExportEntry[], now: number): void {
  const insert = db.prepare('INSERT INTO audit_export_outbox (sequence, digest, key_id, entry, signed_at) VALUES (?, ?, ?, ?, ?)');
  for (const e of entries) insert.run(e.sequence, e.digest, e.keyId, JSON.stringify(e), now);
}

/** Signed entries after the checkpoint, exactly as stored. */
export function pendingEntries(db: ControlDb, afterSeq: number, limit: number): AuditExportEntry[] {
  const rows = db.prepare('SELECT entry FROM audit_export_outbox WHERE sequence > ? ORDER BY sequence LIMIT ?').all(afterSeq, limit) as { entry: string }[];
  return rows.map((r) => JSON.parse(r.entry) as AuditExportEntry);
}

/** Count of signed entries not yet acknowledged. */
export function pendingCount(db: ControlDb, afterSeq: number): number {
  return (db.prepare('SELECT COUNT(*) AS n FROM audit_export_outbox WHERE sequence > ?').get(afterSeq) as { n: number }).n;
}

/** Record an acknowledged batch: the checkpoint moves to its last entry; backoff resets. */
export function recordAck(db: ControlDb, last: AuditExportCheckpoint, now: number): void {
  db.prepare(
    'UPDATE audit_export_state SET checkpoint_sequence = ?, checkpoint_digest = ?, attempts = 0, next_attempt_at = NULL, last_attempt_at = ?, last_success_at = ?, last_error = NULL WHERE id = 1 AND checkpoint_sequence < ?',
  ).run(last.sequence, last.digest, now, now, last.sequence);
}

/** Record a failed delivery attempt and when to retry. */
export function recordFailure(db: ControlDb, error: string, now: number, nextAttemptAt: number | null): void {
  db.prepare('UPDATE audit_export_state SET attempts = attempts + 1, last_attempt_at = ?, next_attempt_at = ?, last_error = ? WHERE id = 1').run(
    now,
    nextAttemptAt,
    error.slice(0, 500),
  );
}

/** Record a signing-side error (such as a gap in audit ids) without touching the backoff. */
export function recordError(db: ControlDb, error: string | null): void {
  db.prepare('UPDATE audit_export_state SET last_error = ? WHERE id = 1').run(error === null ? null : error.slice(0, 500));
}

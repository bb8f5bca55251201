import { createHash } from 'node:crypto';

/** One audit event as exported: the stored row, with metadata kept as its stored JSON text. */
export interface CanonicalAuditEvent {
  id: string;
  kind: string;
  organizationId: string | null;
  projectId: string | null;
  actor: { type: string; id: string; name: string | null };
  /** The stored metadata JSON text, byte for byte (re-serializing could change it). */
  metadata: string;
  createdAt: number;
}

/** The audit_events columns the exporter reads. */
export interface AuditEventRow {
  seq: number;
  id: string;
  kind: string;
  organization_id: string | null;
  project_id: string | null;
  actor_type: string;
  actor_id: string;
  actor_name: string | null;
  metadata: string;
  created_at: number;
}

/** Map a stored audit row to its exported event (the sequence travels beside it, in the entry). */
export function canonicalEvent(row: AuditEventRow): CanonicalAuditEvent {
  return {
    id: row.id,
    kind: row.kind,
    organizationId: row.organization_id,
    projectId: row.project_id,
    actor: { type: row.actor_type, id: row.actor_id, name: row.actor_name },
    metadata: row.metadata,
    createdAt: row.created_at,
  };
}

/** Deterministic JSON: object keys sorted, no whitespace; rejects values JSON cannot carry exactly. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonical JSON cannot encode a non-finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  throw new TypeError(`canonical JSON cannot encode a ${typeof value}`);
}

/** SHA-256 (hex) of the canonical encoding of one event at its sequence. */
export function eventDigest(sequence: number, event: CanonicalAuditEvent): string {
  return sha256Hex(canonicalJson({ sequence, event }));
}

/** SHA-256 of a UTF-8 string, hex. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

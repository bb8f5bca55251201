import { hash } from 'node:crypto';

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

/**
 * `canonicalJson({ sequence, event })` for an event's fixed shape, written out in sorted key order: the
 * same bytes as the generic encoder without its per-object entry lists and sorts (each entry hashes it).
 */
export function canonicalEventJson(sequence: number, event: CanonicalAuditEvent): string {
  const { actor } = event;
  if (!hasFixedShape(event)) return canonicalJson({ sequence, event });
  return (
    `{"event":{"actor":{"id":${JSON.stringify(actor.id)},"name":${JSON.stringify(actor.name)},"type":${JSON.stringify(actor.type)}}` +
    `,"createdAt":${finite(event.createdAt)},"id":${JSON.stringify(event.id)},"kind":${JSON.stringify(event.kind)}` +
    `,"metadata":${JSON.stringify(event.metadata)},"organizationId":${JSON.stringify(event.organizationId)}` +
    `,"projectId":${JSON.stringify(event.projectId)}},"sequence":${finite(sequence)}}`
  );
}

/** Every field present with a string/null/number value (otherwise the generic encoder decides). */
function hasFixedShape(event: CanonicalAuditEvent): boolean {
  const { actor } = event;
  const text = (v: unknown): boolean => typeof v === 'string' || v === null;
  return (
    typeof actor === 'object' &&
    actor !== null &&
    text(actor.id) &&
    text(actor.name) &&
    text(actor.type) &&
    typeof event.createdAt === 'number' &&
    text(event.id) &&
    text(event.kind) &&
    text(event.metadata) &&
    text(event.organizationId) &&
    text(event.projectId)
  );
}

function finite(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError('canonical JSON cannot encode a non-finite number');
  return JSON.stringify(value);
}

/** SHA-256 (hex) of the canonical encoding of one event at its sequence. */
export function eventDigest(sequence: number, event: CanonicalAuditEvent): string {
  return sha256Hex(canonicalEventJson(sequence, event));
}

/** SHA-256 of a UTF-8 string or of bytes, hex (one-shot: no hash object per call). */
export function sha256Hex(data: string | Buffer): string {
  return hash('sha256', data, 'hex');
}

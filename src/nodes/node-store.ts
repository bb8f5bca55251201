// Control tables of node identity and placement: registration tokens and node credentials are kept
// only as SHA-256 hashes; every multi-row change runs inside the caller's SQLite transaction.
import { cachedStatement, type ControlDb } from '../core/control-db.js';
import { labelsSchema } from './contract.js';

/** A row of `nodes`. */
export interface NodeRow {
  id: string;
  credential_hash: string;
  region: string;
  capacity: number;
  concurrency: number;
  labels: string;
  draining: number;
  enrolled_at: number;
  last_seen_at: number | null;
}

/** A row of `node_registration_tokens`. */
export interface RegistrationTokenRow {
  token_hash: string;
  created_by: string;
  organization_id: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  used_by_node: string | null;
}

/** A row of `node_placements`. */
export interface PlacementRow {
  project_id: string;
  node_id: string;
  placed_at: number;
}

/** The labels of a node row (validated again when read back). */
export function nodeLabels(row: NodeRow): Record<string, string> {
  return labelsSchema.parse(JSON.parse(row.labels));
}

/** Store a new registration token hash. */
export function insertRegistrationToken(db: ControlDb, row: Omit<RegistrationTokenRow, 'used_at' | 'used_by_node'>): void {
  cachedStatement(db, 'INSERT INTO node_registration_tokens (token_hash, created_by, organization_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)').run(
    row.token_hash,
    row.created_by,
    row.organization_id,
    row.created_at,
    row.expires_at,
  );
}

/** The registration token with this hash. */
export function findRegistrationToken(db: ControlDb, tokenHash: string): RegistrationTokenRow | undefined {
  return cachedStatement(db, 'SELECT * FROM node_registration_tokens WHERE token_hash = ?').get(tokenHash) as RegistrationTokenRow | undefined;
}

/** Mark a token used; returns false when another enrollment consumed it first. */
export function consumeRegistrationToken(db: ControlDb, tokenHash: string, nodeId: string, now: number): boolean {
  return (
    cachedStatement(db, 'UPDATE node_registration_tokens SET used_at = ?, used_by_node = ? WHERE token_hash = ? AND used_at IS NULL').run(
      now,
      nodeId,
      tokenHash,
    ).changes === 1
  );
}

/** Insert an enrolled node. */
export function insertNode(db: ControlDb, row: NodeRow): void {
  cachedStatement(
    db,
    'INSERT INTO nodes (id, credential_hash, region, capacity, concurrency, labels, draining, enrolled_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(row.id, row.credential_hash, row.region, row.capacity, row.concurrency, row.labels, row.draining, row.enrolled_at, row.last_seen_at);
}

/** One node by id. */
export function getNode(db: ControlDb, id: string): NodeRow | undefined {
  return cachedStatement(db, 'SELECT * FROM nodes WHERE id = ?').get(id) as NodeRow | undefined;
}

/** One node by the hash of its credential. */
export function findNodeByCredentialHash(db: ControlDb, credentialHash: string): NodeRow | undefined {
  return cachedStatement(db, 'SELECT * FROM nodes WHERE credential_hash = ?').get(credentialHash) as NodeRow | undefined;
}

/** Every node, by id. */
export function listNodes(db: ControlDb): NodeRow[] {
  return cachedStatement(db, 'SELECT * FROM nodes ORDER BY id').all() as NodeRow[];
}

/** Record a heartbeat: liveness plus draining, capacity and labels. */
export function recordHeartbeat(db: ControlDb, id: string, input: { draining: boolean; capacity: number; labels: Record<string, string> }, now: number): void {
  cachedStatement(db, 'UPDATE nodes SET draining = ?, capacity = ?, labels = ?, last_seen_at = ? WHERE id = ?').run(
    input.draining ? 1 : 0,
    input.capacity,
    JSON.stringify(input.labels),
    now,
    id,
  );
}

/** Any authenticated node request counts as liveness. */
export function touchNode(db: ControlDb, id: string, now: number): void {
  cachedStatement(db, 'UPDATE nodes SET last_seen_at = ? WHERE id = ?').run(now, id);
}

/** Number of projects placed on each node. */
export function placedCounts(db: ControlDb): Map<string, number> {
  const rows = cachedStatement(db, 'SELECT node_id, COUNT(*) AS n FROM node_placements GROUP BY node_id').all() as { node_id: string; n: number }[];
  return new Map(rows.map((r) => [r.node_id, r.n]));
}

/** The placement of a project, if any. */
export function getPlacement(db: ControlDb, projectId: string): PlacementRow | undefined {
  return cachedStatement(db, 'SELECT * FROM node_placements WHERE project_id = ?').get(projectId) as PlacementRow | undefined;
}

/** Place (or move) a project. */
export function upsertPlacement(db: ControlDb, row: PlacementRow): void {
  cachedStatement(
    db,
    'INSERT INTO node_placements (project_id, node_id, placed_at) VALUES (?, ?, ?) ON CONFLICT (project_id) DO UPDATE SET node_id = excluded.node_id, placed_at = excluded.placed_at',
  ).run(row.project_id, row.node_id, row.placed_at);
}

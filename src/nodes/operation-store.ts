// Control tables of desired generations and provider operations. Writers call these inside one
// SQLite transaction (see generations.ts), so generation, fence and operation change together.
import { cachedStatement, type ControlDb } from '../core/control-db.js';
import type { ObservedResult, OperationRecord, OperationStatus } from './operation-decisions.js';

/** A row of `node_desired`: the project's desired generation, its fence counter and the last observation. */
export interface DesiredRow {
  project_id: string;
  generation: number;
  state: 'running' | 'stopped';
  release_id: string | null;
  fence: number;
  observed_kind: string | null;
  observed_generation: number | null;
  observed_release_id: string | null;
  observed_state: 'running' | 'stopped' | null;
  observed_at: number | null;
}

/** A row of `node_operations`. */
export interface OperationRow {
  id: string;
  project_id: string;
  node_id: string;
  generation: number;
  state: 'running' | 'stopped';
  release_id: string | null;
  artifact_sha256: string | null;
  fence: number;
  status: OperationStatus;
  lease_expires_at: number | null;
  attempts: number;
  error_code: string | null;
  created_at: number;
  finished_at: number | null;
  retry_at: number | null;
  /** JSON of a rollback's intent (nodeRollbackSchema), null for a deploy or a stop. */
  rollback: string | null;
  /** 1 for a canary's running generation (staged beside the baseline), else 0. */
  canary: number;
}

/** The decision view of an operation row. */
export function toRecord(row: OperationRow): OperationRecord & { errorCode: string | null } {
  return {
    id: row.id,
    projectId: row.project_id,
    nodeId: row.node_id,
    generation: row.generation,
    state: row.state,
    releaseId: row.release_id,
    fence: row.fence,
    status: row.status,
    leaseExpiresAt: row.lease_expires_at,
    createdAt: row.created_at,
    retryAt: row.retry_at,
    errorCode: row.error_code,
  };
}

/** The desired state of a project, if it ever had one. */
export function getDesired(db: ControlDb, projectId: string): DesiredRow | undefined {
  return cachedStatement(db, 'SELECT * FROM node_desired WHERE project_id = ?').get(projectId) as DesiredRow | undefined;
}

/** Write the desired generation and fence of a project (observation columns are kept). */
export function putDesired(db: ControlDb, row: Pick<DesiredRow, 'project_id' | 'generation' | 'state' | 'release_id' | 'fence'>): void {
  cachedStatement(
    db,
    `INSERT INTO node_desired (project_id, generation, state, release_id, fence) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (project_id) DO UPDATE SET generation = excluded.generation, state = excluded.state, release_id = excluded.release_id, fence = excluded.fence`,
  ).run(row.project_id, row.generation, row.state, row.release_id, row.fence);
}

/** Raise the fence counter of a project and return the new fence. */
export function bumpFence(db: ControlDb, projectId: string): number {
  return (cachedStatement(db, 'UPDATE node_desired SET fence = fence + 1 WHERE project_id = ? RETURNING fence').get(projectId) as { fence: number }).fence;
}

/** Record the fixed result shape of an accepted observation. */
export function recordObserved(db: ControlDb, projectId: string, result: ObservedResult, now: number): void {
  cachedStatement(
    db,
    'UPDATE node_desired SET observed_kind = ?, observed_generation = ?, observed_release_id = ?, observed_state = ?, observed_at = ? WHERE project_id = ?',
  ).run(result.kind, result.generation, result.releaseId, result.state, now, projectId);
}

/** Insert a new pending operation. */
export function insertOperation(
  db: ControlDb,
  row: Omit<OperationRow, 'status' | 'lease_expires_at' | 'attempts' | 'error_code' | 'finished_at' | 'retry_at' | 'canary'> & { canary?: number },
): void {
  cachedStatement(
    db,
    `INSERT INTO node_operations (id, project_id, node_id, generation, state, release_id, artifact_sha256, fence, status, attempts, created_at, rollback, canary)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
  ).run(
    row.id,
    row.project_id,
    row.node_id,
    row.generation,
    row.state,
    row.release_id,
    row.artifact_sha256,
    row.fence,
    row.created_at,
    row.rollback,
    row.canary ?? 0,
  );
}

/** One operation by id. */
export function getOperation(db: ControlDb, id: string): OperationRow | undefined {
  return cachedStatement(db, 'SELECT * FROM node_operations WHERE id = ?').get(id) as OperationRow | undefined;
}

/** The operation of one generation of a project (each generation has exactly one). */
export function operationOfGeneration(db: ControlDb, projectId: string, generation: number): OperationRow | undefined {
  return cachedStatement(db, 'SELECT * FROM node_operations WHERE project_id = ? AND generation = ? ORDER BY created_at DESC, rowid DESC LIMIT 1').get(
    projectId,
    generation,
  ) as OperationRow | undefined;
}

/** The newest running operation of a project, optionally of one release (what a release pipeline settles). */
export function newestRunningOperation(db: ControlDb, projectId: string, releaseId?: string): OperationRow | undefined {
  if (releaseId === undefined)
    return cachedStatement(db, "SELECT * FROM node_operations WHERE project_id = ? AND state = 'running' ORDER BY generation DESC, rowid DESC LIMIT 1").get(
      projectId,
    ) as OperationRow | undefined;
  return cachedStatement(
    db,
    "SELECT * FROM node_operations WHERE project_id = ? AND release_id = ? AND state = 'running' ORDER BY generation DESC, rowid DESC LIMIT 1",
  ).get(projectId, releaseId) as OperationRow | undefined;
}

/** Open (pending or leased) operations of a project. */
export function openOperationsOfProject(db: ControlDb, projectId: string): OperationRow[] {
  return cachedStatement(db, "SELECT * FROM node_operations WHERE project_id = ? AND status IN ('pending', 'leased') ORDER BY created_at, rowid").all(
    projectId,
  ) as OperationRow[];
}

/** Open operations of a node (what lease decisions look at). */
export function openOperationsOfNode(db: ControlDb, nodeId: string): OperationRow[] {
  return cachedStatement(db, "SELECT * FROM node_operations WHERE node_id = ? AND status IN ('pending', 'leased') ORDER BY created_at, rowid").all(
    nodeId,
  ) as OperationRow[];
}

/** The newest operations of a project (for status views). */
export function recentOperations(db: ControlDb, projectId: string, limit = 20): OperationRow[] {
  return cachedStatement(db, 'SELECT * FROM node_operations WHERE project_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?').all(
    projectId,
    limit,
  ) as OperationRow[];
}

/** Hand out a lease (with the fence it runs under). */
export function leaseOperation(db: ControlDb, id: string, fence: number, expiresAt: number): void {
  cachedStatement(
    db,
    "UPDATE node_operations SET status = 'leased', fence = ?, lease_expires_at = ?, retry_at = NULL, attempts = attempts + 1 WHERE id = ?",
  ).run(fence, expiresAt, id);
}

/** Extend a live lease. */
export function renewLease(db: ControlDb, id: string, expiresAt: number): void {
  cachedStatement(db, 'UPDATE node_operations SET lease_expires_at = ? WHERE id = ?').run(expiresAt, id);
}

/** Close an operation as observed, failed (with a stable code) or superseded. */
export function finishOperation(db: ControlDb, id: string, status: 'observed' | 'failed' | 'superseded', errorCode: string | null, now: number): void {
  cachedStatement(db, 'UPDATE node_operations SET status = ?, error_code = ?, finished_at = ?, lease_expires_at = NULL WHERE id = ?').run(
    status,
    errorCode,
    now,
    id,
  );
}

/** Hand a leased operation back after a transient failure: pending again (same fence), leasable from `retryAt`. */
export function requeueOperation(db: ControlDb, id: string, errorCode: string, retryAt: number): void {
  cachedStatement(db, "UPDATE node_operations SET status = 'pending', error_code = ?, retry_at = ?, lease_expires_at = NULL WHERE id = ?").run(
    errorCode,
    retryAt,
    id,
  );
}

/** Whether a release has an open running operation (its candidate is waiting for the node). */
export function releaseAwaitsNode(db: ControlDb, releaseId: string): boolean {
  return (
    cachedStatement(db, "SELECT 1 FROM node_operations WHERE release_id = ? AND state = 'running' AND status IN ('pending', 'leased') LIMIT 1").get(
      releaseId,
    ) !== undefined
  );
}

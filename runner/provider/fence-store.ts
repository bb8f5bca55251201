// Provider-side durable state (correctness contract rules 1–2): per project the latest accepted fence
// and generation, in one SQLite transaction per decision. Operation id + fence is the idempotency key.
// The same database holds the node's project uids (provider-uids.ts).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SvcError } from '../../src/core/errors.js';
import type { ReconcileRequest } from './provider-contract.js';
import { allocateProjectUid, PROVIDER_UIDS_TABLE } from './provider-uids.js';

/** What a provider should do with a delivered request. */
export type FenceDecision = 'run' | 'duplicate';

/** The stored state of one project. */
export interface FenceRecord {
  projectId: string;
  fence: number;
  generation: number;
  operationId: string;
  status: 'pending' | 'committed';
}

type Key = Pick<ReconcileRequest, 'operation' | 'desired'>;

/**
 * Pure decision: `duplicate` when this exact operation already committed (a retry after a lost
 * response), `run` for newer work or a retry of uncommitted work, a stale-fence error for older work
 * or for a different operation reusing a fence.
 */
export function decideFence(current: FenceRecord | null, request: Key): FenceDecision {
  if (!current) return 'run';
  const { fence, id } = request.operation;
  const sameOp = fence === current.fence && id === current.operationId && request.desired.generation === current.generation;
  if (sameOp) return current.status === 'committed' ? 'duplicate' : 'run';
  if (fence > current.fence && request.desired.generation >= current.generation) return 'run';
  throw new SvcError(
    'SVC_PROVIDER_STALE_FENCE',
    `Project ${request.operation.projectId} already accepted fence ${current.fence} (generation ${current.generation})`,
  );
}

/** SQLite-backed fence store (WAL, synchronous=FULL: a committed decision survives power loss). */
export class FenceStore {
  private readonly db: Database.Database;

  constructor(path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS provider_fences (
      project_id TEXT PRIMARY KEY, fence INTEGER NOT NULL, generation INTEGER NOT NULL,
      operation_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('pending','committed')))`);
    this.db.exec(PROVIDER_UIDS_TABLE);
  }

  /** The uid a project's sandboxed apps run under on this node (allocated on first use, never reused). */
  projectUid(projectId: string, base: number, now = Date.now()): number {
    return allocateProjectUid(this.db, projectId, base, now);
  }

  /** The stored record of a project, or null. */
  get(projectId: string): FenceRecord | null {
    const row = this.db.prepare('SELECT project_id, fence, generation, operation_id, status FROM provider_fences WHERE project_id = ?').get(projectId) as
      { project_id: string; fence: number; generation: number; operation_id: string; status: 'pending' | 'committed' } | undefined;
    return row ? { projectId: row.project_id, fence: row.fence, generation: row.generation, operationId: row.operation_id, status: row.status } : null;
  }

  /** Accept a request (recording it as pending) or reject it as stale, atomically. */
  begin(request: Key): FenceDecision {
    return this.db
      .transaction((): FenceDecision => {
        const decision = decideFence(this.get(request.operation.projectId), request);
        if (decision === 'run') {
          this.db
            .prepare(
              `INSERT INTO provider_fences (project_id, fence, generation, operation_id, status) VALUES (?, ?, ?, ?, 'pending')
             ON CONFLICT(project_id) DO UPDATE SET fence = excluded.fence, generation = excluded.generation, operation_id = excluded.operation_id, status = 'pending'`,
            )
            .run(request.operation.projectId, request.operation.fence, request.desired.generation, request.operation.id);
        }
        return decision;
      })
      .immediate();
  }

  /** Mark the request committed, unless newer work replaced it meanwhile (then stale). */
  commit(request: Key): void {
    const changed = this.db
      .prepare(`UPDATE provider_fences SET status = 'committed' WHERE project_id = ? AND fence = ? AND operation_id = ? AND generation = ?`)
      .run(request.operation.projectId, request.operation.fence, request.operation.id, request.desired.generation).changes;
    if (changed !== 1) throw new SvcError('SVC_PROVIDER_STALE_FENCE', `A newer fence replaced operation ${request.operation.id}`);
  }

  close(): void {
    this.db.close();
  }
}

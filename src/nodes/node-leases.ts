// Node side of operations: lease the next operation, renew, report observed or failed, and the
// artifact check. Decisions are the pure functions of operation-decisions.ts; each change is one
// SQLite transaction, so a lease, a fence bump and an observation never half-happen.
import { SvcError } from '../core/errors.js';
import { isoTime } from '../core/feature-context.js';
import { nodeRollbackSchema, type LeaseResponse } from './contract.js';
import { touchNode, type NodeRow } from './node-store.js';
import { notifySettled, type NodesContext } from './nodes-context.js';
import type { NodeProjectReport } from './route-decisions.js';
import { chooseLease, decideFailure, holdsLease, judgeFailure, judgeObservation, type ObservedResult } from './operation-decisions.js';
import {
  bumpFence,
  finishOperation,
  getOperation,
  leaseOperation,
  openOperationsOfNode,
  openOperationsOfProject,
  recordObserved,
  renewLease,
  requeueOperation,
  toRecord,
  type OperationRow,
} from './operation-store.js';

/** Lease the next operation for a node, or null (nothing to do, draining, or at its concurrency). */
export function leaseNext(n: NodesContext, node: NodeRow): LeaseResponse | null {
  const { ctx, settings } = n;
  return ctx.db
    .transaction(() => {
      const now = ctx.clock.now();
      touchNode(ctx.db, node.id, now);
      const ops = openOperationsOfNode(ctx.db, node.id).map(toRecord);
      const choice = chooseLease(ops, { id: node.id, concurrency: node.concurrency, draining: node.draining === 1 }, now);
      if (!choice) return null;
      // Lease loss: the expired holder's fence is now stale, the new holder works under a higher one.
      const fence = choice.reissue ? bumpFence(ctx.db, choice.op.projectId) : choice.op.fence;
      const expiresAt = now + settings.operationLeaseMs;
      leaseOperation(ctx.db, choice.op.id, fence, expiresAt);
      const row = getOperation(ctx.db, choice.op.id)!;
      return {
        operation: {
          kind: 'reconcile' as const,
          id: row.id,
          projectId: row.project_id,
          fence: row.fence,
          desired: { generation: row.generation, state: row.state, releaseId: row.release_id },
          artifactSha256: row.state === 'running' ? row.artifact_sha256 : null,
          ...(row.state === 'running' && row.rollback !== null ? { rollback: nodeRollbackSchema.parse(JSON.parse(row.rollback)) } : {}),
          ...(row.state === 'running' && row.canary === 1 ? { canary: true as const } : {}),
        },
        leaseExpiresAt: isoTime(expiresAt),
        leaseMs: settings.operationLeaseMs,
      };
    })
    .immediate();
}

/** The node's own operation, or SVC_NODE_OPERATION_NOT_FOUND (other nodes' operations do not exist for it). */
function ownOperation(n: NodesContext, node: NodeRow, operationId: string): OperationRow {
  const op = getOperation(n.ctx.db, operationId);
  if (!op || op.node_id !== node.id) throw new SvcError('SVC_NODE_OPERATION_NOT_FOUND');
  return op;
}

/** Run `handle` on the node's own operation in one immediate transaction, after noting the node was seen. */
function withOwnOperation<T>(n: NodesContext, node: NodeRow, operationId: string, handle: (op: OperationRow, now: number) => T): T {
  const { ctx } = n;
  return ctx.db
    .transaction(() => {
      const now = ctx.clock.now();
      const op = ownOperation(n, node, operationId);
      touchNode(ctx.db, node.id, now);
      return handle(op, now);
    })
    .immediate();
}

/** Extend a live lease; an expired or superseded one is SVC_NODE_LEASE_LOST. */
export function renewOperation(n: NodesContext, node: NodeRow, operationId: string, fence?: number): { leaseExpiresAt: string } {
  const { ctx, settings } = n;
  return withOwnOperation(n, node, operationId, (op, now) => {
    // A fence other than the current one means the lease was re-issued since this holder got it.
    if (!holdsLease(toRecord(op), node.id, now) || (fence !== undefined && fence !== op.fence)) throw new SvcError('SVC_NODE_LEASE_LOST');
    const expiresAt = now + settings.operationLeaseMs;
    renewLease(ctx.db, op.id, expiresAt);
    return { leaseExpiresAt: isoTime(expiresAt) };
  });
}

/** The project of a running operation whose current lease holder asks to hold its requests (stop-first cutover). */
export function holdingOperation(n: NodesContext, node: NodeRow, operationId: string, fence?: number): { projectId: string } {
  const { ctx } = n;
  const now = ctx.clock.now();
  const op = ownOperation(n, node, operationId);
  if (!holdsLease(toRecord(op), node.id, now) || (fence !== undefined && fence !== op.fence)) throw new SvcError('SVC_NODE_LEASE_LOST');
  if (op.state !== 'running') throw new SvcError('SVC_VALIDATION', 'Only a running operation holds requests.');
  return { projectId: op.project_id };
}

/** Accept an observation from the current holder with the current fence (a replay is accepted again). */
export function observeOperation(
  n: NodesContext,
  node: NodeRow,
  operationId: string,
  report: { fence?: number | undefined; result: ObservedResult },
): { accepted: true } {
  const { ctx } = n;
  return withOwnOperation(n, node, operationId, (op, now) => {
    const decision = judgeObservation(toRecord(op), node.id, now, report);
    if (decision.kind === 'refuse') throw new SvcError(decision.code);
    if (decision.kind === 'accept') {
      finishOperation(ctx.db, op.id, 'observed', null, now);
      // Only the fixed result shape is recorded (kind, generation, release, state).
      recordObserved(
        ctx.db,
        op.project_id,
        { kind: report.result.kind, generation: report.result.generation, releaseId: report.result.releaseId, state: report.result.state },
        now,
      );
      notifySettled(n, op);
    }
    return { accepted: true as const };
  });
}

/** Record a failure (a stable code only) from the current holder: final, or handed back for a retry. */
export function failOperation(n: NodesContext, node: NodeRow, operationId: string, report: { fence?: number | undefined; code: string }): { accepted: true } {
  const { ctx } = n;
  return withOwnOperation(n, node, operationId, (op, now) => {
    const decision = judgeFailure(toRecord(op), node.id, now, report);
    if (decision.kind === 'refuse') throw new SvcError(decision.code);
    if (decision.kind === 'accept') {
      // A lost exchange or a passing cause is not an outcome: the operation is leased again (same
      // fence) until it is observed or its attempts run out; only a final failure settles the release.
      const next = decideFailure(report.code, op.attempts, now, n.settings);
      if (next.kind === 'retry') {
        requeueOperation(ctx.db, op.id, report.code, next.retryAt);
      } else {
        finishOperation(ctx.db, op.id, 'failed', report.code, now);
        notifySettled(n, op);
      }
    }
    return { accepted: true as const };
  });
}

/**
 * Converge from what the node reports it runs (its heartbeat): an open operation whose exact
 * generation, release and state the node already runs is observed, as if its agent had reported it —
 * the answer to that report may have been lost. Only the placed node's reports count, and only for
 * the operation's own generation.
 */
export function observeFromReports(n: NodesContext, node: NodeRow, kind: string, reports: readonly NodeProjectReport[]): void {
  const { ctx } = n;
  ctx.db
    .transaction(() => {
      const now = ctx.clock.now();
      for (const report of reports) {
        for (const op of openOperationsOfProject(ctx.db, report.projectId)) {
          if (op.node_id !== node.id || !reportShows(op, report)) continue;
          finishOperation(ctx.db, op.id, 'observed', null, now);
          recordObserved(ctx.db, op.project_id, { kind, generation: op.generation, releaseId: op.release_id, state: op.state }, now);
          notifySettled(n, op);
        }
      }
    })
    .immediate();
}

/** Pure: whether a report shows the operation converged (a canary's: its candidate staged beside the baseline). */
export function reportShows(op: Pick<OperationRow, 'generation' | 'state' | 'release_id' | 'canary'>, report: NodeProjectReport): boolean {
  if (op.canary === 1) return report.canary?.generation === op.generation && report.canary.releaseId === op.release_id;
  return op.generation === report.generation && op.state === report.state && op.release_id === report.releaseId;
}

/** The artifact file of a running operation this node holds a live lease on. */
export function artifactOfOperation(n: NodesContext, node: NodeRow, operationId: string): { path: string; sha256: string } {
  const op = ownOperation(n, node, operationId);
  const now = n.ctx.clock.now();
  if (!holdsLease(toRecord(op), node.id, now)) throw new SvcError('SVC_NODE_LEASE_LOST');
  if (op.state !== 'running' || !op.artifact_sha256) throw new SvcError('SVC_NODE_ARTIFACT_UNAVAILABLE', 'A stopped generation has no artifact.');
  if (!n.artifacts.has(op.project_id, op.artifact_sha256)) throw new SvcError('SVC_NODE_ARTIFACT_UNAVAILABLE');
  return { path: n.artifacts.path(op.project_id, op.artifact_sha256), sha256: op.artifact_sha256 };
}

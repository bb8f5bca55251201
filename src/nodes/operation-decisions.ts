// Pure decisions over operations and leases: which operation a node gets, whether a holder is still
// current, whether an observation or failure report is accepted. No disk, no clock (`now` comes in).
import type { ErrorCode } from '../core/error-codes/index.js';
import { backoffMs } from '../core/retry-policy.js';

/** Lifecycle of a provider operation (`pending` → `leased` → `observed`|`failed`; any open one → `superseded`). */
export type OperationStatus = 'pending' | 'leased' | 'observed' | 'failed' | 'superseded';

/** One operation as the decisions see it. */
export interface OperationRecord {
  id: string;
  projectId: string;
  nodeId: string;
  generation: number;
  state: 'running' | 'stopped';
  releaseId: string | null;
  fence: number;
  status: OperationStatus;
  leaseExpiresAt: number | null;
  createdAt: number;
  /** A pending operation handed back after a transient failure is not leased again before this time. */
  retryAt?: number | null;
}

/** The fixed result shape a node reports (never provider details). */
export interface ObservedResult {
  kind: string;
  generation: number;
  releaseId: string | null;
  state: 'running' | 'stopped';
}

/** Whether a node holds a live lease on the operation right now. */
export function holdsLease(op: OperationRecord, nodeId: string, now: number): boolean {
  return op.status === 'leased' && op.nodeId === nodeId && op.leaseExpiresAt !== null && now < op.leaseExpiresAt;
}

/**
 * The operation to hand to a node, or null: none while draining or at its concurrency (live leases),
 * else the oldest pending operation of its projects (ties: the order given), or one whose lease expired (`reissue`: it must
 * get a new, higher fence so the previous holder's late work is rejected).
 */
export function chooseLease(
  ops: readonly OperationRecord[],
  node: { id: string; concurrency: number; draining: boolean },
  now: number,
): { op: OperationRecord; reissue: boolean } | null {
  if (node.draining) return null;
  const mine = ops.filter((o) => o.nodeId === node.id);
  const live = mine.filter((o) => holdsLease(o, node.id, now)).length;
  if (live >= node.concurrency) return null;
  const leasable = mine.filter(
    (o) => (o.status === 'pending' && (o.retryAt ?? 0) <= now) || (o.status === 'leased' && (o.leaseExpiresAt === null || now >= o.leaseExpiresAt)),
  );
  leasable.sort((a, b) => a.createdAt - b.createdAt); // stable: ties keep the given (insertion) order
  const op = leasable[0];
  return op ? { op, reissue: op.status === 'leased' } : null;
}

/** The next desired generation and fence of a project (both strictly increase). */
export function nextGeneration(current: { generation: number; fence: number } | null): { generation: number; fence: number } {
  return { generation: (current?.generation ?? 0) + 1, fence: (current?.fence ?? 0) + 1 };
}

/** A decision on a node's report: accept it, treat it as a replay of an accepted one, or refuse with a code. */
export type ReportDecision = { kind: 'accept' } | { kind: 'replay' } | { kind: 'refuse'; code: ErrorCode };

function sameResult(op: OperationRecord, result: ObservedResult): boolean {
  return result.generation === op.generation && result.releaseId === op.releaseId && result.state === op.state;
}

/**
 * Judge `observe`: only the current lease holder with the current fence and the operation's own
 * generation, release and state. A retry of an accepted observation (lost response) is a replay.
 */
export function judgeObservation(
  op: OperationRecord,
  nodeId: string,
  now: number,
  report: { fence?: number | undefined; result: ObservedResult },
): ReportDecision {
  const fenceOk = report.fence === undefined || report.fence === op.fence;
  if (op.status === 'observed' && op.nodeId === nodeId && fenceOk && sameResult(op, report.result)) return { kind: 'replay' };
  if (!holdsLease(op, nodeId, now) || !fenceOk || report.result.generation < op.generation) return { kind: 'refuse', code: 'SVC_PROVIDER_STALE_FENCE' };
  if (!sameResult(op, report.result)) return { kind: 'refuse', code: 'SVC_NODE_OBSERVATION_MISMATCH' };
  return { kind: 'accept' };
}

/** Judge `fail`: the same holder rules as observe; a retried identical failure (final or handed back) is a replay. */
export function judgeFailure(
  op: OperationRecord & { errorCode?: string | null },
  nodeId: string,
  now: number,
  report: { fence?: number | undefined; code: string },
): ReportDecision {
  const fenceOk = report.fence === undefined || report.fence === op.fence;
  if ((op.status === 'failed' || op.status === 'pending') && op.nodeId === nodeId && fenceOk && op.errorCode === report.code) return { kind: 'replay' };
  if (!holdsLease(op, nodeId, now) || !fenceOk) return { kind: 'refuse', code: 'SVC_PROVIDER_STALE_FENCE' };
  return { kind: 'accept' };
}

/**
 * Failures after which the node's state is unknown or the cause is passing: the bridge exchange got no
 * answer (the provider may have applied it), the reconcile was aborted or timed out, or an earlier
 * runtime was not cleaned up yet. Such an operation is handed back and leased again with the same fence,
 * so a provider that already committed it acknowledges the replay. Every other code is final.
 */
export const RETRIED_FAILURE_CODES: ReadonlySet<string> = new Set([
  'SVC_PROVIDER_UNREACHABLE',
  'SVC_PROVIDER_ABORTED',
  'SVC_PROVIDER_FENCE_UNRESOLVED',
  'SVC_RUNNER_TIMEOUT',
]);

/** Retry policy of failed operations (node settings). */
export interface RetryPolicy {
  /** Leases of one operation before a retried failure becomes final. */
  maxAttempts: number;
  /** Delay before the first re-lease; doubles per attempt, capped at 60 s. */
  retryDelayMs: number;
}

/**
 * What an accepted failure does: `retry` hands the operation back (pending, leasable from `retryAt`),
 * `fail` closes it. `attempts` counts the leases so far.
 */
export function decideFailure(code: string, attempts: number, now: number, policy: RetryPolicy): { kind: 'retry'; retryAt: number } | { kind: 'fail' } {
  if (!RETRIED_FAILURE_CODES.has(code) || attempts >= policy.maxAttempts) return { kind: 'fail' };
  // svc's retry policy without jitter: the lease schedule is stored and shown, and a decision stays a function of its inputs.
  return { kind: 'retry', retryAt: now + backoffMs({ baseMs: policy.retryDelayMs, capMs: 60_000, jitter: 0 }, attempts, 1) };
}

// Desired generations of placed projects: each request bumps the generation and the project's fence,
// supersedes every open operation (their holders' late work is then stale) and creates one pending
// operation for the placed node — all in one SQLite transaction.
import { appendAudit } from '../audit/append-audit.js';
import { SvcError } from '../core/errors.js';
import { isoTime } from '../core/feature-context.js';
import { findRelease } from '../releases/index.js';
import { nodeRollbackSchema, type GenerationStatus, type NodeRollback } from './contract.js';
import { getPlacement } from './node-store.js';
import { notifySettled, type NodesContext } from './nodes-context.js';
import { nextGeneration } from './operation-decisions.js';
import { finishOperation, getDesired, insertOperation, openOperationsOfProject, putDesired, recentOperations, type OperationRow } from './operation-store.js';
import type { ProjectSubject } from './placement-service.js';

/** What a generation asks for (a rollback's running generation carries its intent for the node). */
/** A canary's running generation stages its release beside the running baseline (never with a rollback). */
export type GenerationRequest = { state: 'running'; releaseId: string; rollback?: NodeRollback; canary?: true } | { state: 'stopped' };

/**
 * Create the next desired generation of a placed project, in its own transaction (the release
 * pipeline requests running generations of its deploys and rollbacks through `placement.deploy`).
 */
export function createGeneration(n: NodesContext, subject: ProjectSubject, request: GenerationRequest): GenerationStatus {
  requestGeneration(n, subject, request);
  return generationStatus(n, subject.project.id);
}

/** Create the next desired generation (see createGeneration) and return its number. */
export function requestGeneration(n: NodesContext, subject: ProjectSubject, request: GenerationRequest): number {
  const { ctx } = n;
  const projectId = subject.project.id;
  return ctx.db.transaction(() => {
    const placement = getPlacement(ctx.db, projectId);
    if (!placement) throw new SvcError('SVC_NODE_NOT_PLACED');
    let digest: string | null = null;
    const canary = request.state === 'running' && request.canary === true;
    if (canary && request.state === 'running' && request.rollback) throw new SvcError('SVC_VALIDATION', 'A rollback is never staged as a canary.');
    if (request.state === 'running') {
      const release = findRelease(ctx, projectId, request.releaseId);
      if (!release) throw new SvcError('SVC_RELEASE_NOT_FOUND', `Release ${request.releaseId} of this project does not exist.`);
      if (release.status === 'failed' || !n.artifacts.has(projectId, release.digest)) throw new SvcError('SVC_NODE_ARTIFACT_UNAVAILABLE');
      digest = release.digest;
    }
    const now = ctx.clock.now();
    const desired = getDesired(ctx.db, projectId);
    const next = nextGeneration(desired ?? null);
    for (const op of openOperationsOfProject(ctx.db, projectId)) supersede(n, op, now);
    const releaseId = request.state === 'running' ? request.releaseId : null;
    putDesired(ctx.db, { project_id: projectId, generation: next.generation, state: request.state, release_id: releaseId, fence: next.fence });
    insertOperation(ctx.db, {
      id: ctx.ids('op'),
      project_id: projectId,
      node_id: placement.node_id,
      generation: next.generation,
      state: request.state,
      release_id: releaseId,
      artifact_sha256: digest,
      fence: next.fence,
      created_at: now,
      rollback: request.state === 'running' && request.rollback ? JSON.stringify(nodeRollbackSchema.parse(request.rollback)) : null,
      canary: canary ? 1 : 0,
    });
    appendAudit(ctx, {
      kind: 'node.generation',
      organizationId: subject.project.organizationId,
      projectId,
      actor: subject.actor,
      metadata: {
        generation: next.generation,
        state: request.state,
        releaseId,
        nodeId: placement.node_id,
        ...(request.state === 'running' && request.rollback ? { rollback: request.rollback } : {}),
        ...(canary ? { canary: true } : {}),
      },
    });
    return next.generation;
  })();
}

/** Close an open operation as superseded; a release it carried will never run (the release pipeline fails it). */
function supersede(n: NodesContext, op: OperationRow, now: number): void {
  finishOperation(n.ctx.db, op.id, 'superseded', null, now);
  notifySettled(n, op);
}

/** Desired and observed generation of a project plus its newest operations. */
export function generationStatus(n: NodesContext, projectId: string): GenerationStatus {
  const { db } = n.ctx;
  const desired = getDesired(db, projectId);
  return {
    projectId,
    nodeId: getPlacement(db, projectId)?.node_id ?? null,
    desired: desired ? { generation: desired.generation, state: desired.state, releaseId: desired.release_id } : null,
    observed:
      desired && desired.observed_generation !== null && desired.observed_state !== null && desired.observed_at !== null
        ? {
            kind: desired.observed_kind ?? 'unknown',
            generation: desired.observed_generation,
            releaseId: desired.observed_release_id,
            state: desired.observed_state,
            observedAt: isoTime(desired.observed_at),
          }
        : null,
    operations: recentOperations(db, projectId).map((op) => ({
      id: op.id,
      generation: op.generation,
      fence: op.fence,
      status: op.status,
      attempts: op.attempts,
      errorCode: op.error_code,
      createdAt: isoTime(op.created_at),
      finishedAt: op.finished_at === null ? null : isoTime(op.finished_at),
    })),
  };
}

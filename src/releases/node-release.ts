// svc:nodes — releases of projects placed on a runner node. The upload keeps the artifact bytes and
// creates a running generation instead of the local transaction; the release row settles when the
// node reports: observed → active (prior → inactive), failed or superseded → failed. A rollback
// becomes a generation of the older release and is committed when that generation is observed.
import { appendAudit } from '../audit/append-audit.js';
import { errorCodes, type ErrorCode } from '../core/error-codes/index.js';
import { SvcError } from '../core/errors.js';
import { findProject, setProjectRelease } from '../projects/index.js';
import type { ReleaseDeps } from './release-deps.js';
import type { ReleaseUpstream } from './release-routing.js';
import { observe } from './release-observer.js';
import { transition } from './release-state.js';
import { activeReleaseRow, findRelease, getRelease, loadReleaseSet, persistReleaseSet, type ReleaseRow } from './release-store.js';
import { markFailed } from './release-transaction.js';
import type { RollbackInput, RollbackResult } from './rollback.js';

/** What a node reported for a release (via src/nodes' listener; called inside its SQLite transaction). */
export type NodeReleaseOutcome = { projectId: string; releaseId: string; ok: true } | { projectId: string; releaseId: string; ok: false; code: string };

const nodeActor = (projectId: string) => ({ type: 'system' as const, id: 'svc-nodes', name: `runner node of ${projectId}` });

/** Settle a release after its node's report; returns the row when it changed. A report for a settled release is ignored. */
export function settleNodeRelease(deps: ReleaseDeps, outcome: NodeReleaseOutcome): ReleaseRow | undefined {
  const { ctx } = deps;
  const project = findProject(ctx, outcome.projectId);
  const row = findRelease(ctx, outcome.projectId, outcome.releaseId);
  if (!project || !row) return undefined;
  const subject = { project: { id: project.id, slug: project.slug, organizationId: project.organization_id }, actor: nodeActor(project.id) };
  if (!outcome.ok) {
    if (row.status !== 'candidate') return undefined;
    markFailed(deps, subject, row.id, { step: 'start', code: outcome.code, message: `The runner node reported ${outcome.code}.` }, null);
  } else {
    if (row.status !== 'candidate' && row.status !== 'inactive') return undefined;
    const prior = activeReleaseRow(ctx, project.id);
    ctx.db.transaction(() => {
      // A candidate activates; an inactive release observed again is a rollback (code only).
      const event = row.status === 'candidate' ? ({ type: 'activate', releaseId: row.id, snapshot: null } as const) : ({ type: 'rollback', releaseId: row.id, restoreData: false, canRollback: true } as const);
      const result = transition(loadReleaseSet(ctx, project.id, project.slug), event);
      persistReleaseSet(ctx, project.id, result.state, { activated: row.id });
      setProjectRelease(ctx, project.id, row.id, 'active');
      appendAudit(ctx, {
        kind: row.status === 'candidate' ? 'release.activate' : 'rollback.complete',
        organizationId: project.organization_id,
        projectId: project.id,
        actor: subject.actor,
        metadata: { releaseId: row.id, digest: row.digest, previousReleaseId: prior?.id ?? null, runnerNode: true },
      });
    })();
  }
  const observer = deps.observer;
  if (row.status === 'candidate' && observer?.onOutcome) observe(ctx.logger, () => observer.onOutcome!({ id: row.id, projectId: project.id }));
  return getRelease(ctx, project.id, row.id);
}

/**
 * `svc rollback` of a placed project: the state machine checks the target (inactive, artifact kept),
 * then a running generation of it is requested, and the answer waits (up to the node deploy wait) for
 * the node: observed → the target is active; a refusal or failure → that stable code as the error;
 * no answer in time → the target as it stands (still inactive; `svc generations` follows it).
 */
export async function rollbackOnNode(deps: ReleaseDeps, input: RollbackInput): Promise<RollbackResult> {
  const { ctx } = deps;
  const placement = deps.placement!;
  if (input.restoreData) throw new SvcError('SVC_NODE_RESTORE_UNSUPPORTED');
  const target = getRelease(ctx, input.project.id, input.releaseId);
  transition(loadReleaseSet(ctx, input.project.id, input.project.slug), { type: 'rollback', releaseId: target.id, restoreData: false, canRollback: true });
  const active = activeReleaseRow(ctx, input.project.id);
  const generation = ctx.db.transaction(() => {
    appendAudit(ctx, { kind: 'rollback.start', organizationId: input.project.organizationId, projectId: input.project.id, actor: input.actor, metadata: { releaseId: target.id, fromReleaseId: active?.id ?? null, runnerNode: true } });
    return placement.deploy(input, target.id);
  })();
  const outcome = await placement.awaitGeneration(input.project.id, generation, placement.waitMs);
  if (outcome && !outcome.ok) throw nodeFailure(outcome.code);
  return { release: getRelease(ctx, input.project.id, target.id), previousReleaseId: active?.id ?? null, restoredData: false };
}

/** The node's stable code as an error: its own registry entry, or SVC_PROVIDER_FAILED naming an unknown one. */
function nodeFailure(code: string): SvcError {
  const known = Object.hasOwn(errorCodes, code);
  return new SvcError(known ? (code as ErrorCode) : 'SVC_PROVIDER_FAILED', `The runner node did not run the rollback: ${code}.`, { details: { nodeCode: code } });
}

/**
 * Route a placed project's hosts to where its node says the release listens (null: unroute). The
 * ingress checks the address accepts connections first and leaves the route unchanged when it does
 * not. Nothing local is stopped afterwards: the node drains its own apps.
 */
export async function routeNodeRelease(deps: ReleaseDeps, input: { projectId: string; releaseId: string | null; upstream: ReleaseUpstream | null }): Promise<void> {
  await deps.routing.switchUpstream(input.projectId, input.upstream, input.releaseId);
}

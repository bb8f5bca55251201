// svc:nodes — releases of projects placed on a runner node. The upload keeps the artifact bytes and
// creates a running generation instead of the local transaction; the release row settles when the
// node reports: observed → active (prior → inactive), failed or superseded → failed with the step the
// node's stable code names (health, migrate, …). A rollback (code only, or a confirmed restore-data
// one) becomes a generation of the older release carrying its intent, committed when it is observed.
import { appendAudit } from '../audit/append-audit.js';
import { errorCodes, type ErrorCode } from '../core/error-codes/index.js';
import { SvcError } from '../core/errors.js';
import { findProject, setProjectRelease } from '../projects/index.js';
import type { ReleaseDeps } from './release-deps.js';
import type { ReleaseUpstream } from './release-routing.js';
import { observe } from './release-observer.js';
import type { ReleaseStep } from './contract.js';
import { activeRelease, restorePhrase, transition } from './release-state.js';
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
    markFailed(deps, subject, row.id, { step: nodeFailureStep(outcome.code), code: outcome.code, message: `The runner node reported ${outcome.code}.` }, null);
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

/** Pure: the release step a node's stable failure code names (what the release shows, as for local projects). */
export function nodeFailureStep(code: string): ReleaseStep {
  if (code === 'SVC_HEALTH_CHECK_FAILED') return 'health';
  if (code.startsWith('SVC_MIGRATION_')) return 'migrate';
  if (code.startsWith('SVC_SNAPSHOT_') || code === 'SVC_DISK_FULL') return 'snapshot';
  return 'start';
}

/**
 * What a rollback asks of the node, handed to the placement hook beside the subject (src/nodes reads
 * it from there: the hook's declared parameters carry no intent yet).
 */
export interface NodeRollbackIntent {
  restoreData: boolean;
  fromReleaseId: string | null;
}

/**
 * Pure: the restore-data checks the state machine makes for a local project, over the release set
 * (its snapshot lives on the node, so the control plane has no snapshot row to require).
 */
export function checkNodeRestore(set: ReturnType<typeof loadReleaseSet>, targetId: string, confirm: string | undefined): void {
  if (confirm !== restorePhrase(set.projectSlug)) throw new SvcError('SVC_RELEASE_CONFIRMATION_MISMATCH', `Type exactly: ${restorePhrase(set.projectSlug)}`);
  const active = activeRelease(set);
  if (!active || active.predecessorId !== targetId) throw new SvcError('SVC_RESTORE_NOT_ALLOWED', `${targetId} is not the immediately previous release`);
}

/**
 * `svc rollback` of a placed project: the state machine checks the target (inactive, artifact kept)
 * and, with restore-data, the confirmation and that the target is the active release's predecessor;
 * then a running generation of it is requested carrying the rollback's intent (the node restores the
 * snapshot it took before deploying the active release, keeping a safety copy until it switched). The
 * answer waits (up to the node deploy wait) for the node: observed → the target is active; a refusal
 * or failure → that stable code as the error; no answer in time → the target as it stands (still
 * inactive; `svc generations` follows it).
 */
export async function rollbackOnNode(deps: ReleaseDeps, input: RollbackInput): Promise<RollbackResult> {
  const { ctx } = deps;
  const placement = deps.placement!;
  const target = getRelease(ctx, input.project.id, input.releaseId);
  const set = loadReleaseSet(ctx, input.project.id, input.project.slug);
  transition(set, { type: 'rollback', releaseId: target.id, restoreData: false, canRollback: true });
  if (input.restoreData) checkNodeRestore(set, target.id, input.confirm);
  const active = activeReleaseRow(ctx, input.project.id);
  const nodeRollback: NodeRollbackIntent = { restoreData: input.restoreData, fromReleaseId: active?.id ?? null };
  const subject = { project: input.project, actor: input.actor, nodeRollback };
  const generation = ctx.db.transaction(() => {
    appendAudit(ctx, {
      kind: 'rollback.start',
      organizationId: input.project.organizationId,
      projectId: input.project.id,
      actor: input.actor,
      metadata: { releaseId: target.id, fromReleaseId: active?.id ?? null, restoreData: input.restoreData, runnerNode: true },
    });
    return placement.deploy(subject, target.id);
  })();
  const outcome = await placement.awaitGeneration(input.project.id, generation, placement.waitMs);
  if (outcome && !outcome.ok) throw nodeFailure(outcome.code);
  const release = getRelease(ctx, input.project.id, target.id);
  return { release, previousReleaseId: active?.id ?? null, restoredData: input.restoreData && release.status === 'active' };
}

/** The node's stable code as an error: its own registry entry, or SVC_PROVIDER_FAILED naming an unknown one. */
function nodeFailure(code: string): SvcError {
  const known = Object.hasOwn(errorCodes, code);
  return new SvcError(known ? (code as ErrorCode) : 'SVC_PROVIDER_FAILED', `The runner node did not run the rollback: ${code}.`, { details: { nodeCode: code } });
}

/**
 * Route a placed project's hosts to where its node says the release listens (null: unroute), or with
 * `hold` take it out of rotation holding its new requests (up to SVC_HOLD_REQUESTS_MS) while the node
 * runs a stop-first cutover; the next route ends the hold. The ingress checks an address accepts
 * connections first and leaves the route unchanged when it does not. Either way the previous target
 * drains (bounded) before this resolves: the node stops a replaced app only after that answer.
 */
export async function routeNodeRelease(deps: ReleaseDeps, input: { projectId: string; releaseId: string | null; upstream: ReleaseUpstream | null; hold?: boolean }): Promise<void> {
  const previous = input.hold && input.upstream === null ? await deps.routing.hold(input.projectId, deps.settings.holdMs) : await deps.routing.switchUpstream(input.projectId, input.upstream, input.releaseId);
  await deps.routing.drain(previous, deps.settings.drainTimeoutMs);
}

// The releases feature's observer for GitHub: refuses superseded or older commits, and turns release
// phases and rollbacks into check-run models and deployment statuses. Only synchronous SQLite writes
// happen here (plus a queue wake-up); GitHub is called later by the queue, never on the release path.
import { SvcError } from '../core/errors.js';
import type { FeatureContext } from '../core/feature-context.js';
import { findProject } from '../projects/index.js';
import { activeReleaseRow, findRelease, type ObservedRelease, type ObservedRollback, type ReleaseObserver, type ReleaseSource } from '../releases/index.js';
import type { CheckModel, Phase, ReleaseCheckModel, RollbackCheckModel } from './check-model.js';
import { checksOfRelease, createCheck, findOpenReleaseCheck, updateCheck } from './check-store.js';
import { addCommit, findCommit, releaseSource, saveReleaseSource, setCommitState } from './commit-store.js';
import { addDeploymentStatus, createDeployment, findDeployment } from './deployment-store.js';
import { findLink, problemOf, type LinkRow } from './link-store.js';
import { appUrlOf } from './sync-github.js';

export interface ReporterDeps {
  ctx: FeatureContext;
  /** Ask the queue to look for work now. */
  wake: () => void;
}

/** A link that can report to GitHub (linked, same repository, installation healthy). */
function usableLink(deps: ReporterDeps, projectId: string, repositoryId: number | null): LinkRow | null {
  const link = findLink(deps.ctx, projectId);
  if (!link || (repositoryId !== null && repositoryId !== link.repository_id)) return null;
  const problem = problemOf(deps.ctx, link);
  if (problem) deps.ctx.logger.warn({ projectId, reason: problem.reason }, 'github link is broken; nothing is reported to GitHub');
  return problem ? null : link;
}

/** Mark a commit superseded and complete its open check accordingly. */
export function supersede(deps: ReporterDeps, projectId: string, sha: string, newerSha: string, note?: string): void {
  setCommitState(deps.ctx, projectId, sha, 'superseded', { supersededBy: newerSha });
  const open = findOpenReleaseCheck(deps.ctx, projectId, sha);
  if (open)
    updateCheck(deps.ctx, open.id, (m) =>
      m.kind === 'release' ? { ...m, state: 'superseded', supersededBy: newerSha, finishedAt: deps.ctx.clock.now(), ...(note ? { note } : {}) } : null,
    );
}

/** Refuse an upload whose commit is superseded or older than the active release's commit. */
export function admitUpload(deps: ReporterDeps, projectId: string, source: ReleaseSource): void {
  const link = findLink(deps.ctx, projectId);
  if (!link || (source.repositoryId !== null && source.repositoryId !== link.repository_id)) return;
  const commit = findCommit(deps.ctx, projectId, source.commitSha);
  if (!commit) return; // never pushed to the linked branch as far as svc knows: nothing to order it against
  if (commit.state === 'superseded') {
    throw new SvcError(
      'SVC_GITHUB_COMMIT_SUPERSEDED',
      `Commit ${source.commitSha.slice(0, 7)} was superseded by ${commit.superseded_by?.slice(0, 7) ?? 'a newer push'}; it is not released.`,
    );
  }
  const active = activeReleaseRow(deps.ctx, projectId);
  const activeSha = active ? releaseSource(deps.ctx, active.id)?.sha : undefined;
  const activeCommit = activeSha ? findCommit(deps.ctx, projectId, activeSha) : undefined;
  if (activeCommit && activeCommit.seq > commit.seq) {
    supersede(
      deps,
      projectId,
      commit.sha,
      activeCommit.sha,
      `The newer commit ${activeCommit.sha.slice(0, 7)} is already active; an older commit never replaces it.`,
    );
    deps.wake();
    throw new SvcError(
      'SVC_GITHUB_COMMIT_SUPERSEDED',
      `The newer commit ${activeCommit.sha.slice(0, 7)} is already active; ${source.commitSha.slice(0, 7)} is older and is not released.`,
    );
  }
}

function releaseModel(now: number, releaseId: string, priorReleaseId: string | null, previous?: CheckModel): ReleaseCheckModel {
  const queuedAt = previous?.kind === 'release' ? previous.queuedAt : now;
  return { kind: 'release', state: 'in_progress', queuedAt, releaseId, priorReleaseId, phases: [{ name: 'verified', at: now }] };
}

function onCandidate(deps: ReporterDeps, release: ObservedRelease, source: ReleaseSource | null): void {
  if (!source) return;
  const { ctx } = deps;
  saveReleaseSource(ctx, { releaseId: release.id, projectId: release.projectId, sha: source.commitSha, repositoryId: source.repositoryId });
  const link = usableLink(deps, release.projectId, source.repositoryId);
  if (!link) return;
  addCommit(ctx, release.projectId, source.commitSha, 'releasing', null);
  setCommitState(ctx, release.projectId, source.commitSha, 'releasing', { releaseId: release.id, deadlineAt: null });
  const now = ctx.clock.now();
  const prior = activeReleaseRow(ctx, release.projectId)?.id ?? null;
  const open = findOpenReleaseCheck(ctx, release.projectId, source.commitSha);
  if (open) updateCheck(ctx, open.id, (m) => releaseModel(now, release.id, prior, m), release.id);
  else
    createCheck(ctx, {
      projectId: release.projectId,
      fullName: link.full_name,
      installationId: link.installation_id,
      sha: source.commitSha,
      name: 'svc/release',
      releaseId: release.id,
      model: releaseModel(now, release.id, prior),
    });
  createDeployment(ctx, {
    releaseId: release.id,
    projectId: release.projectId,
    fullName: link.full_name,
    installationId: link.installation_id,
    sha: source.commitSha,
    environment: link.environment,
    first: { state: 'in_progress', description: `Releasing ${release.id}` },
  });
  deps.wake();
}

/** The check phase a release step event completes, if any (svc/release and svc/preview alike). */
export function phaseOf(step: string, details: Record<string, unknown>): Phase['name'] | null {
  if (step === 'snapshot' && details.done) return 'snapshot';
  if (step === 'migrate' && details.done) return 'migrations';
  if (step === 'health' && !details.done) return 'started';
  if (step === 'activate' && !details.done) return 'health';
  return null;
}

/** The detail a phase shows (snapshot size, migrations applied). */
export function phaseDetail(name: Phase['name'], details: Record<string, unknown>): string | undefined {
  if (name === 'snapshot' && typeof details.snapshotBytes === 'number') return `${details.snapshotBytes} bytes`;
  if (name === 'migrations' && Array.isArray(details.applied)) return details.applied.length ? details.applied.join(', ') : 'none pending';
  return undefined;
}

function addPhase(deps: ReporterDeps, releaseId: string, phase: Phase, final?: 'success' | 'failure'): void {
  for (const check of checksOfRelease(deps.ctx, releaseId, 'svc/release')) {
    if (check.completed) continue;
    updateCheck(deps.ctx, check.id, (m) => {
      if (m.kind !== 'release') return null;
      const phases = phase.name === 'verified' ? m.phases : [...m.phases, phase];
      return final ? { ...m, phases, state: final, finishedAt: phase.at } : { ...m, phases };
    });
  }
}

function onOutcome(deps: ReporterDeps, release: ObservedRelease): void {
  const { ctx } = deps;
  const row = findRelease(ctx, release.projectId, release.id);
  const source = releaseSource(ctx, release.id);
  if (!row || !source || row.status === 'candidate') return;
  const ok = row.status === 'active';
  const now = ctx.clock.now();
  addPhase(deps, release.id, ok ? { name: 'active', at: now } : { name: 'verified', at: now }, ok ? 'success' : 'failure');
  if (findCommit(ctx, release.projectId, source.sha)) setCommitState(ctx, release.projectId, source.sha, ok ? 'released' : 'failed');
  const slug = findProject(ctx, release.projectId)?.slug ?? release.projectId;
  if (findDeployment(ctx, release.id)) {
    addDeploymentStatus(
      ctx,
      release.id,
      ok
        ? { state: 'success', description: `${release.id} is active`, environmentUrl: appUrlOf(ctx, slug) }
        : { state: 'failure', description: `${row.failure_code ?? 'failed'} at ${row.failure_step ?? '?'}` },
    );
  }
  deps.wake();
}

function onRollback(deps: ReporterDeps, event: ObservedRollback): void {
  const { ctx } = deps;
  const source = releaseSource(ctx, event.releaseId);
  const link = source ? usableLink(deps, event.projectId, source.repository_id) : null;
  if (!source || !link) return;
  const now = ctx.clock.now();
  const actor = event.actor.type === 'github' ? `@${event.actor.name ?? event.actor.id} (GitHub)` : (event.actor.name ?? event.actor.id);
  if (event.phase === 'start') {
    const model: RollbackCheckModel = {
      kind: 'rollback',
      state: 'in_progress',
      releaseId: event.releaseId,
      fromReleaseId: event.fromReleaseId,
      restoreData: event.restoreData,
      actor,
      startedAt: now,
    };
    createCheck(ctx, {
      projectId: event.projectId,
      fullName: link.full_name,
      installationId: link.installation_id,
      sha: source.sha,
      name: 'svc/rollback',
      releaseId: event.releaseId,
      model,
    });
  } else {
    const open = checksOfRelease(ctx, event.releaseId, 'svc/rollback')
      .filter((c) => !c.completed)
      .at(-1);
    if (open)
      updateCheck(ctx, open.id, (m) =>
        m.kind === 'rollback'
          ? { ...m, state: event.phase === 'complete' ? 'success' : 'failure', finishedAt: now, ...(event.error ? { error: event.error } : {}) }
          : null,
      );
    if (event.phase === 'complete') {
      const slug = findProject(ctx, event.projectId)?.slug ?? event.projectId;
      const status = { state: 'success' as const, description: `Rolled back to ${event.releaseId}`, environmentUrl: appUrlOf(ctx, slug) };
      if (findDeployment(ctx, event.releaseId)) addDeploymentStatus(ctx, event.releaseId, status);
      else
        createDeployment(ctx, {
          releaseId: event.releaseId,
          projectId: event.projectId,
          fullName: link.full_name,
          installationId: link.installation_id,
          sha: source.sha,
          environment: link.environment,
          first: status,
        });
    }
  }
  deps.wake();
}

/** The ReleaseObserver the composition root passes to the releases feature. */
export function createReleaseReporter(deps: ReporterDeps): ReleaseObserver {
  // Each hook's writes are one transaction (a savepoint inside the caller's): all or nothing.
  const atomic =
    <A extends unknown[]>(fn: (...args: A) => void) =>
    (...args: A): void =>
      deps.ctx.db.transaction(() => fn(...args))();
  return {
    admit: (projectId, source) => admitUpload(deps, projectId, source),
    onCandidate: atomic((release, source) => onCandidate(deps, release, source)),
    onPhase: atomic((release, step, details) => {
      const name = phaseOf(step, details);
      if (name) addPhase(deps, release.id, { name, at: deps.ctx.clock.now(), ...(phaseDetail(name, details) ? { detail: phaseDetail(name, details)! } : {}) });
      if (name) deps.wake();
    }),
    onOutcome: atomic((release) => onOutcome(deps, release)),
    onRollback: atomic((event) => onRollback(deps, event)),
  };
}

// The releases feature's observer for preview projects (one per pull request): only the pull request's
// head commit is admitted; the release's phases go to the svc/preview check on that commit (rendered as
// svc/release renders them), to the preview Deployment's statuses (in_progress, then success with the
// preview URL, or failure) and to the pull request's comment. Never to svc/release or the production
// environment. Synchronous SQLite writes only (plus a queue wake-up), like release-reporter.ts.
import { SvcError } from '../core/errors.js';
import type { PreviewIdentity, PreviewLifecycle } from '../previews/index.js';
import { activeReleaseRow, findRelease, type ObservedRelease, type ReleaseObserver, type ReleaseSource } from '../releases/index.js';
import type { CheckRow } from './check-store.js';
import { checksOfRelease, createCheck, openChecks, updateCheck } from './check-store.js';
import { releaseSource, saveReleaseSource } from './commit-store.js';
import { addDeploymentStatus, findDeployment, previewDeploymentKey } from './deployment-store.js';
import { findLink, problemOf } from './link-store.js';
import type { PreviewCheckModel } from './preview-check.js';
import { commentOf, findPullRequest, updateComment } from './pull-request-store.js';
import { phaseDetail, phaseOf, type ReporterDeps } from './release-reporter.js';

export interface PreviewReporterDeps extends ReporterDeps {
  previews: PreviewLifecycle;
}

/** Refuse an upload to a preview whose commit is not the pull request's head (a newer push superseded it). */
export function admitPreviewUpload(deps: PreviewReporterDeps, preview: PreviewIdentity, source: ReleaseSource): void {
  const head = deps.previews.find(preview.parentProjectId, preview.number)?.headSha ?? preview.headSha;
  if (source.commitSha === head) return;
  throw new SvcError(
    'SVC_GITHUB_COMMIT_SUPERSEDED',
    `Commit ${source.commitSha.slice(0, 7)} is no longer the head of pull request #${preview.number} (the head is ${head.slice(0, 7)}); only the head commit is deployed as its preview.`,
  );
}

/** The pull request row when `sha` is still its head and it is open (else nothing more is reported). */
function currentHead(deps: PreviewReporterDeps, preview: PreviewIdentity, sha: string) {
  const pr = findPullRequest(deps.ctx, preview.parentProjectId, preview.number);
  return pr && pr.head_sha === sha && commentOf(pr).state !== 'removed' ? pr : undefined;
}

function onCandidate(deps: PreviewReporterDeps, preview: PreviewIdentity, release: ObservedRelease, source: ReleaseSource | null): void {
  if (!source) return;
  const { ctx } = deps;
  saveReleaseSource(ctx, { releaseId: release.id, projectId: release.projectId, sha: source.commitSha, repositoryId: source.repositoryId });
  const link = findLink(ctx, preview.parentProjectId);
  if (!link || problemOf(ctx, link) || (source.repositoryId !== null && source.repositoryId !== link.repository_id)) return;
  const pr = currentHead(deps, preview, source.commitSha);
  if (!pr) return;
  const now = ctx.clock.now();
  const prior = activeReleaseRow(ctx, release.projectId)?.id ?? null;
  const started = (m: PreviewCheckModel): PreviewCheckModel => ({
    ...m,
    state: 'in_progress',
    releaseId: release.id,
    priorReleaseId: prior,
    previewProjectId: preview.previewProjectId,
    url: preview.url,
    phases: [{ name: 'verified', at: now }],
  });
  const open = openChecks(ctx, preview.parentProjectId, 'svc/preview', source.commitSha)
    .filter((c) => modelOf(c).number === preview.number)
    .at(-1);
  if (open) updateCheck(ctx, open.id, (m) => (m.kind === 'preview' ? started(m) : null), release.id);
  else {
    const slug = commentOf(pr).previewSlug;
    const fresh: PreviewCheckModel = {
      kind: 'preview',
      state: 'waiting',
      number: preview.number,
      url: preview.url,
      previewProjectId: null,
      previewSlug: slug,
      queuedAt: now,
      phases: [],
    };
    createCheck(ctx, {
      projectId: preview.parentProjectId,
      fullName: link.full_name,
      installationId: link.installation_id,
      sha: source.commitSha,
      name: 'svc/preview',
      releaseId: release.id,
      model: started(fresh),
    });
  }
  const key = previewDeploymentKey(preview.parentProjectId, preview.number, source.commitSha);
  if (findDeployment(ctx, key)) addDeploymentStatus(ctx, key, { state: 'in_progress', description: `Deploying ${release.id}` });
  updateComment(ctx, preview.parentProjectId, preview.number, (m) => ({
    ...m,
    state: 'deploying',
    releaseId: release.id,
    url: preview.url,
    deployed: true,
    at: now,
  }));
  deps.wake();
}

function modelOf(check: CheckRow): PreviewCheckModel {
  return JSON.parse(check.model) as PreviewCheckModel;
}

function onPhase(deps: PreviewReporterDeps, release: ObservedRelease, step: string, details: Record<string, unknown>): void {
  const name = phaseOf(step, details);
  if (!name) return;
  const detail = phaseDetail(name, details);
  const phase = { name, at: deps.ctx.clock.now(), ...(detail ? { detail } : {}) };
  for (const check of checksOfRelease(deps.ctx, release.id, 'svc/preview')) {
    if (!check.completed) updateCheck(deps.ctx, check.id, (m) => (m.kind === 'preview' && name !== 'verified' ? { ...m, phases: [...m.phases, phase] } : null));
  }
  deps.wake();
}

function onOutcome(deps: PreviewReporterDeps, preview: PreviewIdentity | null, release: ObservedRelease): void {
  const { ctx } = deps;
  const row = findRelease(ctx, release.projectId, release.id);
  const source = releaseSource(ctx, release.id);
  if (!row || !source || row.status === 'candidate') return;
  const ok = row.status === 'active';
  const now = ctx.clock.now();
  // The check follows the release even when the pull request closed meanwhile (then it is already complete).
  for (const check of checksOfRelease(ctx, release.id, 'svc/preview')) {
    if (check.completed) continue;
    updateCheck(ctx, check.id, (m) =>
      m.kind === 'preview'
        ? { ...m, phases: ok ? [...m.phases, { name: 'active', at: now }] : m.phases, state: ok ? 'success' : 'failure', finishedAt: now }
        : null,
    );
  }
  if (preview && currentHead(deps, preview, source.sha)) {
    const key = previewDeploymentKey(preview.parentProjectId, preview.number, source.sha);
    const failure = row.failure_code ? { step: row.failure_step ?? 'recovery', code: row.failure_code, message: row.failure_message ?? '' } : undefined;
    if (findDeployment(ctx, key))
      addDeploymentStatus(
        ctx,
        key,
        ok
          ? { state: 'success', description: `${release.id} is active`, environmentUrl: preview.url }
          : { state: 'failure', description: `${failure?.code ?? 'failed'} at ${failure?.step ?? '?'}` },
      );
    updateComment(ctx, preview.parentProjectId, preview.number, (m) => ({
      ...m,
      state: ok ? 'ready' : 'failed',
      releaseId: release.id,
      url: preview.url,
      ...(ok ? {} : failure ? { failure } : {}),
      at: now,
    }));
  }
  deps.wake();
}

/** The observer of preview projects' releases; `owns` tells which projects it takes (the rest go to release-reporter.ts). */
export function createPreviewReporter(deps: PreviewReporterDeps): { owns(projectId: string): boolean; observer: ReleaseObserver } {
  const atomic =
    <A extends unknown[]>(fn: (...args: A) => void) =>
    (...args: A): void =>
      deps.ctx.db.transaction(() => fn(...args))();
  const of = (projectId: string) => deps.previews.previewOf(projectId);
  return {
    owns: (projectId) => of(projectId) !== null,
    observer: {
      admit: (projectId, source) => {
        const preview = of(projectId);
        if (preview) admitPreviewUpload(deps, preview, source);
      },
      onCandidate: atomic((release, source) => {
        const preview = of(release.projectId);
        if (preview) onCandidate(deps, preview, release, source);
      }),
      onPhase: atomic((release, step, details) => onPhase(deps, release, step, details)),
      onOutcome: atomic((release) => onOutcome(deps, of(release.projectId), release)),
    },
  };
}

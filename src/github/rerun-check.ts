// "Re-run" on an svc/release check (check_run.rerequested, check_suite.rerequested): the branch head
// is released again from its retained artifact (inactive → active, code-only); an active release is
// confirmed; a commit without a usable artifact waits for a new upload; older commits are refused.
import type { FeatureContext } from '../core/feature-context.js';
import { appendAudit } from '../audit/append-audit.js';
import { findProject } from '../projects/index.js';
import { findRelease, type RollbackInput, type RollbackResult } from '../releases/index.js';
import type { ReleaseCheckModel } from './check-model.js';
import { createCheck, findCheckByRunId } from './check-store.js';
import { findCommit, newestCommit, releaseOfCommit, setCommitState } from './commit-store.js';
import { findLink, linksOfRepository, problemOf } from './link-store.js';

export interface RerunDeps {
  ctx: FeatureContext;
  appId: number;
  buildTimeoutMs: number;
  rollback: (input: RollbackInput) => Promise<RollbackResult>;
  wake: () => void;
}

interface Sender {
  login: string;
  id: number;
}

export interface CheckRunRerequested {
  check_run: { id: number; name: string; head_sha: string; app?: { id: number } | null };
  repository: { id: number };
  sender: Sender;
}

export interface CheckSuiteRerequested {
  check_suite: { head_sha: string; head_branch: string | null; app?: { id: number } | null };
  repository: { id: number };
  sender: Sender;
}

/** check_run.rerequested for one of svc's svc/release runs. */
export async function rerunCheckRun(deps: RerunDeps, payload: CheckRunRerequested): Promise<string> {
  if (payload.check_run.app?.id !== deps.appId) return 'not_our_app';
  if (payload.check_run.name !== 'svc/release') return 'not_a_release_check';
  const check = findCheckByRunId(deps.ctx, payload.check_run.id);
  if (!check) return 'unknown_check';
  return rerunCommit(deps, check.project_id, check.sha, payload.sender);
}

/** check_suite.rerequested ("Re-run all checks") for a linked branch. */
export async function rerunCheckSuite(deps: RerunDeps, payload: CheckSuiteRerequested): Promise<string> {
  if (payload.check_suite.app?.id !== deps.appId) return 'not_our_app';
  const link = linksOfRepository(deps.ctx, payload.repository.id).find((l) => l.branch === payload.check_suite.head_branch);
  if (!link) return 'unlinked_branch';
  return rerunCommit(deps, link.project_id, payload.check_suite.head_sha, payload.sender);
}

async function rerunCommit(deps: RerunDeps, projectId: string, sha: string, sender: Sender): Promise<string> {
  const { ctx } = deps;
  const link = findLink(ctx, projectId);
  const project = findProject(ctx, projectId);
  if (!link || !project || problemOf(ctx, link)) return 'unlinked';
  const now = ctx.clock.now();
  const newCheck = (model: ReleaseCheckModel, releaseId?: string) =>
    createCheck(ctx, {
      projectId,
      fullName: link.full_name,
      installationId: link.installation_id,
      sha,
      name: 'svc/release',
      releaseId: releaseId ?? null,
      model,
    });
  const audit = (outcome: string, releaseId: string | null) =>
    appendAudit(ctx, {
      kind: 'github.rerun',
      organizationId: project.organization_id,
      projectId,
      actor: { type: 'github', id: `github:${sender.id}`, name: sender.login },
      metadata: { sha, outcome, releaseId },
    });
  const newest = newestCommit(ctx, projectId);
  if (newest && newest.sha !== sha && findCommit(ctx, projectId, sha)) {
    newCheck({
      kind: 'release',
      state: 'superseded',
      queuedAt: now,
      finishedAt: now,
      phases: [],
      supersededBy: newest.sha,
      note: 'Only the newest commit of the linked branch can be released again.',
    });
    audit('superseded', null);
    deps.wake();
    return 'superseded';
  }
  const releaseId = releaseOfCommit(ctx, projectId, sha);
  const release = releaseId ? findRelease(ctx, projectId, releaseId) : undefined;
  if (release?.status === 'active') {
    newCheck(
      {
        kind: 'release',
        state: 'success',
        queuedAt: now,
        finishedAt: now,
        releaseId: release.id,
        phases: [{ name: 'active', at: now, detail: 'already active' }],
      },
      release.id,
    );
    audit('already_active', release.id);
    deps.wake();
    return 'already_active';
  }
  if (release?.status === 'inactive' && release.artifact_retained === 1) {
    audit('re_release', release.id);
    const actor = { type: 'github' as const, id: `github:${sender.id}`, name: sender.login };
    await deps
      .rollback({ project: { id: project.id, slug: project.slug, organizationId: project.organization_id }, actor, releaseId: release.id, restoreData: false })
      .catch((error: unknown) => {
        ctx.logger.warn({ err: error, projectId, releaseId: release.id }, 're-release from a check re-run failed (reported on svc/rollback)');
      });
    return 're_released';
  }
  // No usable artifact: wait for a fresh upload of this commit (re-run the workflow).
  const deadlineAt = now + deps.buildTimeoutMs;
  if (findCommit(ctx, projectId, sha)) setCommitState(ctx, projectId, sha, 'waiting', { deadlineAt });
  newCheck({ kind: 'release', state: 'waiting', queuedAt: now, phases: [], timeoutMinutes: Math.round(deps.buildTimeoutMs / 60_000) });
  audit('waiting_for_upload', release?.id ?? null);
  deps.wake();
  return 'waiting_for_upload';
}

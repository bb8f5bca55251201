// pull_request → previews, for pull requests into a linked branch. opened / reopened / synchronize ask
// previews to open (or move) the pull request's preview, then record what GitHub should show: a queued
// svc/preview check and a transient Deployment on the head commit (ready), a failed check (the live
// limit), or only the comment (a fork: never deployed automatically). A newer head supersedes the older
// head's open check. closed asks previews to remove it: checks complete, deployments go inactive, the
// comment says so. Only rows are written (one transaction) and syncs queued; decidePullRequest is pure.
import type { FeatureContext } from '../core/feature-context.js';
import { previewEnvironment, previewSlug } from '../previews/contract.js';
import type { PreviewLifecycle, PreviewOpenOutcome, PullRequestInput } from '../previews/index.js';
import { findProject } from '../projects/index.js';
import type { CheckModel } from './check-model.js';
import { createCheck, openChecks, updateCheck } from './check-store.js';
import { addDeploymentStatus, createDeployment, lastDeploymentStatus, previewDeployments, previewDeploymentKey } from './deployment-store.js';
import { findLinkByBranch, problemOf, renameRepository, type LinkRow } from './link-store.js';
import type { PreviewCheckModel } from './preview-check.js';
import type { PreviewCommentModel } from './preview-comment.js';
import { commentOf, findPullRequest, savePullRequest, updateComment } from './pull-request-store.js';

/** The fields of a pull_request payload svc reads. */
export interface PullRequestPayload {
  action: string;
  number: number;
  pull_request: {
    title: string;
    user: { login: string } | null;
    merged?: boolean | null | undefined;
    head: { ref: string; sha: string; repo: { id: number } | null };
    base: { ref: string; repo: { id: number; full_name: string; html_url: string } };
  };
  installation?: { id: number } | null | undefined;
}

export type PullRequestDecision =
  | { action: 'ignore'; reason: 'action_ignored' | 'no_installation' }
  | { action: 'open'; input: Omit<PullRequestInput, 'parentProjectId'>; reopened: boolean }
  | { action: 'close'; number: number; merged: boolean };

const openActions = new Set(['opened', 'reopened', 'synchronize']);

/** What to do with a pull_request event, from its payload alone. Pure. */
export function decidePullRequest(payload: PullRequestPayload): PullRequestDecision {
  if (!openActions.has(payload.action) && payload.action !== 'closed') return { action: 'ignore', reason: 'action_ignored' };
  if (!payload.installation?.id) return { action: 'ignore', reason: 'no_installation' };
  const pr = payload.pull_request;
  if (payload.action === 'closed') return { action: 'close', number: payload.number, merged: pr.merged === true };
  // A fork's head repository is another repository (or one since deleted): its code is untrusted.
  const fork = pr.head.repo === null || pr.head.repo.id !== pr.base.repo.id;
  return {
    action: 'open',
    reopened: payload.action === 'reopened',
    input: { number: payload.number, title: pr.title, author: pr.user?.login ?? null, headRef: pr.head.ref, headSha: pr.head.sha, fork },
  };
}

export interface PullRequestResult {
  outcome: 'ignored' | 'already_known' | PreviewOpenOutcome['kind'] | 'closed';
  reason?: string;
  projectId?: string;
  number?: number;
  superseded?: string[];
}

export interface PullRequestDeps {
  ctx: FeatureContext;
  previews: PreviewLifecycle | null;
  wake: () => void;
}

/** Apply a pull_request event. previews is called first (it may take a while); svc's rows then change in one transaction. */
export async function handlePullRequest(deps: PullRequestDeps, payload: PullRequestPayload): Promise<PullRequestResult> {
  const decision = decidePullRequest(payload);
  if (decision.action === 'ignore') return { outcome: 'ignored', reason: decision.reason };
  const { ctx } = deps;
  const base = payload.pull_request.base;
  renameRepository(ctx, base.repo.id, base.repo.full_name);
  const link = findLinkByBranch(ctx, base.repo.id, base.ref);
  if (!link) return { outcome: 'ignored', reason: 'unlinked_branch' };
  const problem = problemOf(ctx, link);
  if (problem) return { outcome: 'ignored', reason: problem.reason, projectId: link.project_id };
  if (!deps.previews) return { outcome: 'ignored', reason: 'previews_off', projectId: link.project_id };
  const result = decision.action === 'open' ? await open(deps, deps.previews, link, payload, decision) : await close(deps, deps.previews, link, decision);
  deps.wake();
  return result;
}

async function open(
  deps: PullRequestDeps,
  previews: PreviewLifecycle,
  link: LinkRow,
  payload: PullRequestPayload,
  decision: Extract<PullRequestDecision, { action: 'open' }>,
): Promise<PullRequestResult> {
  const { ctx } = deps;
  const { number, headSha } = decision.input;
  const projectId = link.project_id;
  const known = findPullRequest(ctx, projectId, number);
  // A redelivery (or an event about a head already handled) changes nothing; a reopened one starts over.
  if (known && known.head_sha === headSha && commentOf(known).state !== 'removed' && !decision.reopened) return { outcome: 'already_known', projectId, number };
  const outcome = await previews.open({ parentProjectId: projectId, ...decision.input });
  const slug = previewSlug(findProject(ctx, projectId)?.slug ?? projectId, number);
  return ctx.db
    .transaction((): PullRequestResult => {
      const now = ctx.clock.now();
      const superseded = supersedeOlderHeads(ctx, projectId, number, headSha);
      const base = { projectId, fullName: link.full_name, installationId: link.installation_id, sha: headSha, name: 'svc/preview' as const };
      const check = (over: Partial<PreviewCheckModel>): PreviewCheckModel => ({
        kind: 'preview',
        state: 'waiting',
        number,
        url: null,
        previewProjectId: null,
        previewSlug: slug,
        queuedAt: now,
        phases: [],
        ...over,
      });
      const comment: PreviewCommentModel = { state: 'waiting', number, headSha, url: null, previewSlug: slug, at: now };
      const wasDeployed = known ? commentOf(known).deployed !== false : false;
      if (outcome.kind === 'ready') {
        const waiting = openChecks(ctx, projectId, 'svc/preview', headSha).some((c) => (JSON.parse(c.model) as PreviewCheckModel).number === number);
        if (!waiting) createCheck(ctx, { ...base, model: check({ url: outcome.url, previewProjectId: outcome.previewProjectId }) });
        const key = previewDeploymentKey(projectId, number, headSha);
        const queued = { state: 'queued' as const, description: `Waiting for the build of ${headSha.slice(0, 7)}` };
        createDeployment(ctx, {
          releaseId: key,
          projectId,
          fullName: link.full_name,
          installationId: link.installation_id,
          sha: headSha,
          environment: previewEnvironment(number),
          first: queued,
          transient: true,
          description: `svc preview of #${number}`,
          payload: { projectId, previewProjectId: outcome.previewProjectId, pullRequest: number },
        });
        addDeploymentStatus(ctx, key, queued); // a reopened pull request's deployment was inactive
        Object.assign(comment, { url: outcome.url, deployed: true });
      } else if (outcome.kind === 'limit') {
        createCheck(ctx, { ...base, model: check({ state: 'limit', limit: { limit: outcome.limit, live: outcome.live }, finishedAt: now }) });
        Object.assign(comment, { state: 'limit', limit: { limit: outcome.limit, live: outcome.live }, deployed: wasDeployed });
      } else {
        Object.assign(comment, { state: 'fork', deployed: wasDeployed });
      }
      savePullRequest(ctx, {
        projectId,
        number,
        fullName: link.full_name,
        installationId: link.installation_id,
        htmlUrl: payload.pull_request.base.repo.html_url,
        headSha,
        comment,
      });
      return { outcome: outcome.kind, projectId, number, superseded };
    })
    .immediate();
}

/** Complete the open svc/preview checks of older heads, and retire their deployments. */
function supersedeOlderHeads(ctx: FeatureContext, projectId: string, number: number, headSha: string): string[] {
  const now = ctx.clock.now();
  const shas = new Set<string>();
  for (const c of openChecks(ctx, projectId, 'svc/preview')) {
    if (c.sha === headSha) continue;
    if (updateCheck(ctx, c.id, (m) => (ofPull(m, number) ? { ...m, state: 'superseded', supersededBy: headSha, finishedAt: now } : null))) shas.add(c.sha);
  }
  for (const d of previewDeployments(ctx, projectId, number)) {
    if (d.sha === headSha || lastDeploymentStatus(d)?.state === 'inactive') continue;
    addDeploymentStatus(ctx, d.release_id, { state: 'inactive', description: `Superseded by ${headSha.slice(0, 7)}` });
  }
  return [...shas];
}

function ofPull(model: CheckModel, number: number): model is PreviewCheckModel {
  return model.kind === 'preview' && model.number === number;
}

async function close(
  deps: PullRequestDeps,
  previews: PreviewLifecycle,
  link: LinkRow,
  decision: Extract<PullRequestDecision, { action: 'close' }>,
): Promise<PullRequestResult> {
  const { ctx } = deps;
  const { number, merged } = decision;
  const projectId = link.project_id;
  await previews.close({ parentProjectId: projectId, number, merged });
  const how = merged ? 'merged' : 'closed';
  ctx.db
    .transaction(() => {
      const now = ctx.clock.now();
      for (const c of openChecks(ctx, projectId, 'svc/preview'))
        updateCheck(ctx, c.id, (m) => (ofPull(m, number) ? { ...m, state: 'closed', merged, finishedAt: now } : null));
      for (const d of previewDeployments(ctx, projectId, number)) {
        if (lastDeploymentStatus(d)?.state === 'inactive') continue;
        addDeploymentStatus(ctx, d.release_id, { state: 'inactive', description: `Pull request ${how}; preview removed` });
      }
      updateComment(ctx, projectId, number, (m) =>
        m.state === 'removed' ? null : { ...m, state: 'removed', merged, deployed: m.deployed !== false, at: now },
      );
    })
    .immediate();
  return { outcome: 'closed', projectId, number };
}

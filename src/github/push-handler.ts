// push → for a linked branch: a queued svc/release check on the head commit ("waiting for the build"),
// older commits still waiting are superseded. Branch deletions, tags and unlinked branches are
// ignored on purpose (decidePush says why; tests pin each reason).
import type { FeatureContext } from '../core/feature-context.js';
import type { ReleaseCheckModel } from './check-model.js';
import { createCheck } from './check-store.js';
import { addCommit, waitingBefore } from './commit-store.js';
import { findLinkByBranch, problemOf, renameRepository } from './link-store.js';
import { supersede } from './release-reporter.js';

/** The fields of a push payload svc reads. */
export interface PushPayload {
  ref: string;
  after: string;
  deleted?: boolean;
  repository: { id: number; full_name: string };
  installation?: { id: number } | null;
}

export type PushDecision =
  | { action: 'ignore'; reason: 'branch_deleted' | 'not_a_branch' | 'no_installation' | 'no_commit' }
  | { action: 'track'; branch: string; sha: string; repositoryId: number; fullName: string };

const ZERO_SHA = /^0+$/;

/** What to do with a push, from its payload alone. Pure. */
export function decidePush(payload: PushPayload): PushDecision {
  if (payload.deleted === true || ZERO_SHA.test(payload.after)) return { action: 'ignore', reason: 'branch_deleted' };
  if (!payload.ref.startsWith('refs/heads/')) return { action: 'ignore', reason: 'not_a_branch' };
  if (!payload.installation?.id) return { action: 'ignore', reason: 'no_installation' };
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(payload.after)) return { action: 'ignore', reason: 'no_commit' };
  return {
    action: 'track',
    branch: payload.ref.slice('refs/heads/'.length),
    sha: payload.after,
    repositoryId: payload.repository.id,
    fullName: payload.repository.full_name,
  };
}

export interface PushResult {
  outcome: 'ignored' | 'tracked' | 'already_known';
  reason?: string;
  projectId?: string;
  superseded?: string[];
}

/** Apply a push: record the commit, supersede older waiting ones, create the queued check. One transaction. */
export function handlePush(deps: { ctx: FeatureContext; buildTimeoutMs: number; wake: () => void }, payload: PushPayload): PushResult {
  const decision = decidePush(payload);
  if (decision.action === 'ignore') return { outcome: 'ignored', reason: decision.reason };
  const { ctx } = deps;
  renameRepository(ctx, decision.repositoryId, decision.fullName);
  const link = findLinkByBranch(ctx, decision.repositoryId, decision.branch);
  if (!link) return { outcome: 'ignored', reason: 'unlinked_branch' };
  const problem = problemOf(ctx, link);
  if (problem) return { outcome: 'ignored', reason: problem.reason, projectId: link.project_id };
  const result = ctx.db
    .transaction((): PushResult => {
      const now = ctx.clock.now();
      const { row, created } = addCommit(ctx, link.project_id, decision.sha, 'waiting', now + deps.buildTimeoutMs);
      if (!created) return { outcome: 'already_known', projectId: link.project_id };
      const older = waitingBefore(ctx, link.project_id, row.seq);
      for (const commit of older) supersede({ ctx, wake: deps.wake }, link.project_id, commit.sha, decision.sha);
      const model: ReleaseCheckModel = {
        kind: 'release',
        state: 'waiting',
        queuedAt: now,
        phases: [],
        timeoutMinutes: Math.round(deps.buildTimeoutMs / 60_000),
      };
      createCheck(ctx, {
        projectId: link.project_id,
        fullName: link.full_name,
        installationId: link.installation_id,
        sha: decision.sha,
        name: 'svc/release',
        model,
      });
      return { outcome: 'tracked', projectId: link.project_id, superseded: older.map((c) => c.sha) };
    })
    .immediate();
  deps.wake();
  return result;
}

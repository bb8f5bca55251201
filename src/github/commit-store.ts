// Commits of linked branches in push order, with where each stands: waiting for its build, releasing,
// released, failed, superseded by a newer push, or timed out. The order decides which commit may
// still be released: never one older than the newest pushed or active commit.
import type { FeatureContext } from '../core/feature-context.js';

type Ctx = Pick<FeatureContext, 'db' | 'clock'>;

export type CommitState = 'waiting' | 'releasing' | 'released' | 'failed' | 'superseded' | 'timed_out';

export interface CommitRow {
  project_id: string;
  sha: string;
  seq: number;
  state: CommitState;
  release_id: string | null;
  superseded_by: string | null;
  deadline_at: number | null;
  pushed_at: number;
}

/** A commit of a project, if svc has seen it. */
export function findCommit(ctx: Pick<FeatureContext, 'db'>, projectId: string, sha: string): CommitRow | undefined {
  return ctx.db.prepare('SELECT * FROM github_commits WHERE project_id = ? AND sha = ?').get(projectId, sha) as CommitRow | undefined;
}

/** Record a commit as the newest of its branch (idempotent: an already known commit keeps its place). */
export function addCommit(ctx: Ctx, projectId: string, sha: string, state: CommitState, deadlineAt: number | null): { row: CommitRow; created: boolean } {
  const known = findCommit(ctx, projectId, sha);
  if (known) return { row: known, created: false };
  const { seq } = ctx.db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM github_commits WHERE project_id = ?').get(projectId) as { seq: number };
  ctx.db
    .prepare('INSERT INTO github_commits (project_id, sha, seq, state, deadline_at, pushed_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(projectId, sha, seq, state, deadlineAt, ctx.clock.now());
  return { row: findCommit(ctx, projectId, sha)!, created: true };
}

/** Older commits still waiting for their build (they become superseded by a newer push). */
export function waitingBefore(ctx: Pick<FeatureContext, 'db'>, projectId: string, seq: number): CommitRow[] {
  return ctx.db.prepare("SELECT * FROM github_commits WHERE project_id = ? AND seq < ? AND state = 'waiting'").all(projectId, seq) as CommitRow[];
}

/** The newest commit of a project (the branch head as svc knows it). */
export function newestCommit(ctx: Pick<FeatureContext, 'db'>, projectId: string): CommitRow | undefined {
  return ctx.db.prepare('SELECT * FROM github_commits WHERE project_id = ? ORDER BY seq DESC LIMIT 1').get(projectId) as CommitRow | undefined;
}

/** Set the state (and optionally release / superseding commit / deadline) of a commit. */
export function setCommitState(
  ctx: Pick<FeatureContext, 'db'>,
  projectId: string,
  sha: string,
  state: CommitState,
  extra: { releaseId?: string; supersededBy?: string; deadlineAt?: number | null } = {},
): void {
  ctx.db
    .prepare(
      `UPDATE github_commits SET state = ?, release_id = COALESCE(?, release_id), superseded_by = COALESCE(?, superseded_by),
         deadline_at = CASE WHEN ? THEN ? ELSE deadline_at END WHERE project_id = ? AND sha = ?`,
    )
    .run(state, extra.releaseId ?? null, extra.supersededBy ?? null, extra.deadlineAt !== undefined ? 1 : 0, extra.deadlineAt ?? null, projectId, sha);
}

/** Commits whose build did not arrive in time. */
export function overdueCommits(ctx: Ctx): CommitRow[] {
  return ctx.db
    .prepare("SELECT * FROM github_commits WHERE state = 'waiting' AND deadline_at IS NOT NULL AND deadline_at <= ?")
    .all(ctx.clock.now()) as CommitRow[];
}

/** Record which commit a release was built from (every upload with the commit header). */
export function saveReleaseSource(
  ctx: Pick<FeatureContext, 'db'>,
  input: { releaseId: string; projectId: string; sha: string; repositoryId: number | null },
): void {
  ctx.db
    .prepare('INSERT INTO github_release_sources (release_id, project_id, sha, repository_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING')
    .run(input.releaseId, input.projectId, input.sha, input.repositoryId);
}

/** The commit a release was built from. */
export function releaseSource(ctx: Pick<FeatureContext, 'db'>, releaseId: string): { sha: string; repository_id: number | null } | undefined {
  return ctx.db.prepare('SELECT sha, repository_id FROM github_release_sources WHERE release_id = ?').get(releaseId) as
    { sha: string; repository_id: number | null } | undefined;
}

/** The newest release built from a commit. */
export function releaseOfCommit(ctx: Pick<FeatureContext, 'db'>, projectId: string, sha: string): string | undefined {
  const row = ctx.db
    .prepare('SELECT release_id FROM github_release_sources WHERE project_id = ? AND sha = ? ORDER BY rowid DESC LIMIT 1')
    .get(projectId, sha) as { release_id: string } | undefined;
  return row?.release_id;
}

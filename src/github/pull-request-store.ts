// Pull requests of linked branches: the head commit svc last saw, and the preview comment as svc wants
// it (the model and its version) beside what GitHub has (the comment id and the synced version). Every
// change queues one sync job per pull request, so the comment converges to the latest model in order.
import type { FeatureContext } from '../core/feature-context.js';
import { enqueueJob } from './job-queue.js';
import type { PreviewCommentModel } from './preview-comment.js';

type Ctx = Pick<FeatureContext, 'db' | 'clock'>;

export interface PullRequestRow {
  project_id: string;
  number: number;
  full_name: string;
  installation_id: number;
  html_url: string;
  head_sha: string;
  comment: string;
  comment_id: number | null;
  version: number;
  synced_version: number;
  created_at: number;
  updated_at: number;
}

/** Queue the sync of a pull request's comment (one pending job per pull request). */
export function queueCommentSync(ctx: Ctx, projectId: string, number: number): void {
  const key = `pr:${projectId}:${number}`;
  enqueueJob(ctx, 'sync-preview-comment', { projectId, number }, { lane: key, dedupeKey: key });
}

export function findPullRequest(ctx: Pick<FeatureContext, 'db'>, projectId: string, number: number): PullRequestRow | undefined {
  return ctx.db.prepare('SELECT * FROM github_pull_requests WHERE project_id = ? AND number = ?').get(projectId, number) as PullRequestRow | undefined;
}

/** The comment model of a row. */
export function commentOf(row: PullRequestRow): PreviewCommentModel {
  return JSON.parse(row.comment) as PreviewCommentModel;
}

/** Record a pull request's head and comment (insert, or update keeping the comment id). */
export function savePullRequest(
  ctx: Ctx,
  input: { projectId: string; number: number; fullName: string; installationId: number; htmlUrl: string; headSha: string; comment: PreviewCommentModel },
): void {
  const now = ctx.clock.now();
  ctx.db
    .prepare(
      `INSERT INTO github_pull_requests (project_id, number, full_name, installation_id, html_url, head_sha, comment, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (project_id, number) DO UPDATE SET full_name = excluded.full_name, installation_id = excluded.installation_id,
         html_url = excluded.html_url, head_sha = excluded.head_sha, comment = excluded.comment, version = version + 1, updated_at = excluded.updated_at`,
    )
    .run(input.projectId, input.number, input.fullName, input.installationId, input.htmlUrl, input.headSha, JSON.stringify(input.comment), now, now);
  queueCommentSync(ctx, input.projectId, input.number);
}

/** Change the comment model (return null from `change` to leave it alone). */
export function updateComment(
  ctx: Ctx,
  projectId: string,
  number: number,
  change: (model: PreviewCommentModel, row: PullRequestRow) => PreviewCommentModel | null,
): boolean {
  const row = findPullRequest(ctx, projectId, number);
  if (!row) return false;
  const next = change(commentOf(row), row);
  if (!next) return false;
  ctx.db
    .prepare('UPDATE github_pull_requests SET comment = ?, version = version + 1, updated_at = ? WHERE project_id = ? AND number = ?')
    .run(JSON.stringify(next), ctx.clock.now(), projectId, number);
  queueCommentSync(ctx, projectId, number);
  return true;
}

/** Record what GitHub has (the comment id and the version sent). */
export function markCommentSynced(ctx: Pick<FeatureContext, 'db'>, projectId: string, number: number, commentId: number, version: number): void {
  ctx.db
    .prepare('UPDATE github_pull_requests SET comment_id = ?, synced_version = MAX(synced_version, ?) WHERE project_id = ? AND number = ?')
    .run(commentId, version, projectId, number);
}

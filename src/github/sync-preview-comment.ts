// Queue handler that makes a pull request's preview comment match svc's record: created once, then
// edited in place. Before creating, svc looks for its own comment on the pull request (the marker, posted
// by this app), so a retry after a crash, or a lost record, never adds a second one; a comment someone
// deleted is created again.
import { commentOf, findPullRequest, markCommentSynced, type PullRequestRow } from './pull-request-store.js';
import { PREVIEW_COMMENT_MARKER, renderPreviewComment } from './preview-comment.js';
import { splitFullName, type SyncDeps } from './sync-github.js';

export interface CommentSyncDeps extends SyncDeps {
  /** This app's id: only comments it posted are svc's. */
  appId: number;
}

/** Create or update the preview comment of a pull request. */
export async function syncPreviewComment(deps: CommentSyncDeps, projectId: string, number: number): Promise<void> {
  const row = findPullRequest(deps.ctx, projectId, number);
  if (!row || (row.comment_id !== null && row.synced_version >= row.version)) return;
  const version = row.version;
  const body = renderPreviewComment(commentOf(row), row.html_url);
  const octokit = await deps.github.installation(row.installation_id);
  const { owner, repo } = splitFullName(row.full_name);
  let commentId = row.comment_id ?? (await findOwnComment(deps, row));
  if (commentId !== null) {
    try {
      await octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', { owner, repo, comment_id: commentId, body });
    } catch (error) {
      if ((error as { status?: number }).status !== 404) throw error;
      commentId = null; // deleted on GitHub: post it again
    }
  }
  if (commentId === null) {
    const created = await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner, repo, issue_number: number, body });
    commentId = Number(created.data.id);
  }
  markCommentSynced(deps.ctx, projectId, number, commentId, version);
}

async function findOwnComment(deps: CommentSyncDeps, row: PullRequestRow): Promise<number | null> {
  const octokit = await deps.github.installation(row.installation_id);
  const { owner, repo } = splitFullName(row.full_name);
  const list = await octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner, repo, issue_number: row.number, per_page: 100 });
  const own = list.data.find((c) => c.performed_via_github_app?.id === deps.appId && (c.body ?? '').startsWith(PREVIEW_COMMENT_MARKER));
  return own ? Number(own.id) : null;
}

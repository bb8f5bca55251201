// A preview as the API shows it: its pull request, where it is served and what state it is in. Pure
// over the rows it is given.
import { isoTime } from '../core/feature-context.js';
import type { Preview, PreviewState } from './contract.js';
import type { PreviewRow } from './preview-store.js';

/** What the state is derived from: the preview project's row and its newest release. */
export interface PreviewFacts {
  slug: string;
  url: string;
  activeReleaseId: string | null;
  newest: { id: string; status: 'candidate' | 'active' | 'inactive' | 'failed' } | null;
}

/** The state a user sees (see previewStateSchema). */
export function previewState(row: Pick<PreviewRow, 'asleep' | 'candidate_release_id' | 'candidate_sha' | 'head_sha'>, facts: PreviewFacts): PreviewState {
  if (facts.newest?.status === 'candidate') return 'deploying';
  const headFailed = facts.newest?.status === 'failed' && facts.newest.id === row.candidate_release_id && row.candidate_sha === row.head_sha;
  if (headFailed) return 'failed';
  if (facts.activeReleaseId) return row.asleep === 1 ? 'sleeping' : 'active';
  return 'waiting';
}

export function toPreview(row: PreviewRow, facts: PreviewFacts): Preview {
  return {
    number: row.number,
    projectId: row.project_id,
    slug: facts.slug,
    url: facts.url,
    parentProjectId: row.parent_project_id,
    title: row.title,
    author: row.author,
    headRef: row.head_ref,
    headSha: row.head_sha,
    state: previewState(row, facts),
    releaseId: facts.activeReleaseId,
    releaseCommitSha: facts.activeReleaseId ? row.serving_sha : null,
    dataSource: row.data_source,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    lastRequestAt: row.last_request_at === null ? null : isoTime(row.last_request_at),
  };
}

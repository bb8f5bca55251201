// The svc/preview check run: one per head commit of a pull request whose base branch is linked. It waits
// for the Action's upload, then lists the preview release's phases exactly as svc/release does (that part
// is rendered by check-model.ts); here are the states only a preview has: waiting, superseded by a newer
// head, the pull request closed, and the live-preview limit reached. Pure render.
import type { CheckRunBody, Phase } from './check-run-body.js';

export interface PreviewCheckModel {
  kind: 'preview';
  state: 'waiting' | 'in_progress' | 'success' | 'failure' | 'superseded' | 'closed' | 'limit' | 'timed_out';
  /** The pull request number. */
  number: number;
  /** Where the preview is served (null when none was created). */
  url: string | null;
  /** The preview's own project (its releases), null when none was created. */
  previewProjectId: string | null;
  previewSlug: string;
  queuedAt: number;
  releaseId?: string;
  priorReleaseId?: string | null;
  phases: Phase[];
  supersededBy?: string;
  merged?: boolean;
  limit?: { limit: number; live: number };
  /** The build timeout that ran out (state timed_out), in minutes. */
  timeoutMinutes?: number;
  finishedAt?: number;
}

/** The sentence the limit check and the PR comment both say. Pure. */
export function previewLimitText(limit: { limit: number; live: number }): { title: string; advice: string } {
  return {
    title: `${limit.live} live previews, the limit is ${limit.limit}`,
    advice: 'close a pull request or raise SVC_PREVIEW_LIMIT',
  };
}

/** Render the preview-only states; null for in_progress / success / failure (rendered as a release). */
export function renderPreviewCheck(model: PreviewCheckModel): Omit<CheckRunBody, 'details_url'> | null {
  const iso = (ms: number): string => new Date(ms).toISOString();
  const done = (conclusion: NonNullable<CheckRunBody['conclusion']>) => ({
    status: 'completed' as const,
    conclusion,
    completed_at: iso(model.finishedAt ?? model.queuedAt),
  });
  const external = model.releaseId ? { external_id: model.releaseId } : {};
  const where = model.url ? ` at ${model.url}` : '';
  switch (model.state) {
    case 'waiting':
      return {
        ...external,
        status: 'queued',
        output: {
          title: 'Waiting for the build',
          summary: `svc deploys this commit as the preview of pull request #${model.number} (**${model.previewSlug}**)${where} once the pull request's workflow uploads its artifact with the svc Action.`,
        },
      };
    case 'timed_out':
      return {
        ...done('timed_out'),
        output: {
          title: `No build uploaded within ${model.timeoutMinutes ?? '?'} minutes`,
          summary: `Nothing was uploaded for this commit of pull request #${model.number}. Add the svc Action to a workflow that runs on \`pull_request\` (see docs/previews.md in svc's documentation), then push again.`,
        },
      };
    case 'superseded':
      return {
        ...external,
        ...done('neutral'),
        output: {
          title: `Superseded by ${(model.supersededBy ?? 'a newer commit').slice(0, 7)}`,
          summary: `A newer commit (${model.supersededBy ?? 'unknown'}) was pushed to pull request #${model.number}; its preview shows only the newest commit.`,
        },
      };
    case 'closed':
      return {
        ...external,
        ...done('neutral'),
        output: {
          title: model.merged ? 'Pull request merged' : 'Pull request closed',
          summary: `Pull request #${model.number} was ${model.merged ? 'merged' : 'closed'}; its preview **${model.previewSlug}** was removed.`,
        },
      };
    case 'limit': {
      const text = previewLimitText(model.limit ?? { limit: 0, live: 0 });
      return {
        ...done('failure'),
        output: {
          title: text.title,
          summary: `No preview (**${model.previewSlug}**) was created for pull request #${model.number}: ${text.title}; ${text.advice}, then push to this pull request again.`,
        },
      };
    }
    default:
      return null;
  }
}

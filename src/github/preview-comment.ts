// The one comment svc keeps on a pull request whose base branch is linked: where its preview stands
// (waiting for the build, deploying, ready, failed, not deployed and why, removed), the URL, the commit
// and when. Created once, then edited in place; the hidden marker tells svc's comment from anyone's. Pure.
import { previewLimitText } from './preview-check.js';

/** First line of svc's preview comment (an HTML comment: invisible on GitHub). */
export const PREVIEW_COMMENT_MARKER = '<!-- svc:preview-comment -->';

export interface PreviewCommentModel {
  state: 'waiting' | 'deploying' | 'ready' | 'failed' | 'limit' | 'fork' | 'removed';
  number: number;
  headSha: string;
  url: string | null;
  previewSlug: string;
  releaseId?: string;
  failure?: { step: string; code: string; message: string };
  limit?: { limit: number; live: number };
  merged?: boolean;
  /** Whether a preview ever existed for this pull request (the removed state says so). */
  deployed?: boolean;
  /** When this state was reached (ms). */
  at: number;
}

const FORK_HELP = [
  'Pull requests from forks are never deployed automatically: their code is untrusted, and GitHub gives',
  'their workflows no OIDC token, so they cannot upload to svc. To deploy it deliberately, a maintainer',
  "reviews the change, pushes the fork's branch to this repository and opens a pull request from there:",
  '',
  '```sh',
  'git fetch <fork-url> <branch>:preview/<branch>',
  'git push origin preview/<branch>',
  '```',
].join('\n');

function status(model: PreviewCommentModel): string[] {
  const sha7 = model.headSha.slice(0, 7);
  switch (model.state) {
    case 'waiting':
      return [`⏳ **Waiting for the build** of ${sha7}: the pull request's workflow uploads it with the svc Action.`];
    case 'deploying':
      return [`🔄 **Deploying** \`${model.releaseId ?? sha7}\`…`];
    case 'ready':
      return [`✅ **Ready**${model.releaseId ? ` (\`${model.releaseId}\`)` : ''}`];
    case 'failed': {
      const f = model.failure;
      return [
        `❌ **Failed**${f ? ` at ${f.step}: \`${f.code}\`` : ''}`,
        ...(f?.message ? ['', `**Reason:** ${f.message.slice(0, 2000)}`] : []),
        '',
        'An earlier release of this preview keeps serving, if there was one. Push a fix to deploy again.',
      ];
    }
    case 'limit': {
      const text = previewLimitText(model.limit ?? { limit: 0, live: 0 });
      return [`⛔ **Not deployed:** ${text.title}; ${text.advice}, then push to this pull request again.`];
    }
    case 'fork':
      return ['🔒 **Not deployed:** this pull request comes from a fork.', '', FORK_HELP];
    case 'removed': {
      const how = model.merged ? 'merged' : 'closed';
      return [model.deployed === false ? `Pull request ${how}; no preview was deployed.` : `🗑️ **Preview removed** (pull request ${how}).`];
    }
  }
}

/** The comment body. Pure. */
export function renderPreviewComment(model: PreviewCommentModel, repoHtmlUrl: string): string {
  const commit = `[${model.headSha.slice(0, 7)}](${repoHtmlUrl}/commit/${model.headSha})`;
  const live = model.state !== 'removed' && model.state !== 'fork' && model.state !== 'limit';
  return [
    PREVIEW_COMMENT_MARKER,
    `### svc preview of #${model.number}`,
    '',
    ...status(model),
    '',
    '| | |',
    '| --- | --- |',
    ...(live && model.url ? [`| **URL** | ${model.url} |`] : []),
    `| **Project** | ${model.previewSlug} |`,
    `| **Commit** | ${commit} |`,
    `| **Updated** | ${new Date(model.at).toISOString()} |`,
  ]
    .join('\n')
    .slice(0, 60_000);
}

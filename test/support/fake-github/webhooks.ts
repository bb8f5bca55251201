// Real webhook material: payloads from @octokit/webhooks-examples (copied and adapted where a linked
// branch or a PR comment is needed) and deliveries signed with the real HMAC-SHA256.
import { createHmac, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const require = createRequire(import.meta.url);
const examples = require('@octokit/webhooks-examples') as { name: string; examples: Json[] }[];

/** A deep copy of the first example of `event` matching `pick`. */
export function example(event: string, pick: (payload: Json) => boolean = () => true): Json {
  const found = examples.find((e) => e.name === event)?.examples.find(pick);
  if (!found) throw new Error(`no @octokit/webhooks-examples payload for ${event}`);
  return structuredClone(found);
}

/** The push example to refs/heads/master with an installation, adapted to a branch, commit and repository. */
export function pushPayload(opts: { sha: string; branch?: string; repoId?: number; fullName?: string; installationId?: number; before?: string }): Json {
  const payload = example('push', (p) => p.ref === 'refs/heads/master' && Boolean(p.installation));
  payload.ref = `refs/heads/${opts.branch ?? 'main'}`;
  payload.after = opts.sha;
  payload.before = opts.before ?? '0'.repeat(40);
  payload.head_commit.id = opts.sha;
  payload.repository.id = opts.repoId ?? payload.repository.id;
  payload.repository.full_name = opts.fullName ?? payload.repository.full_name;
  payload.installation.id = opts.installationId ?? payload.installation.id;
  return payload;
}

/** The issue_comment.created example with an installation, turned into a PR comment (or an issue comment). */
export function commentPayload(opts: {
  body: string;
  commentId: number;
  login?: string;
  userId?: number;
  issueNumber?: number;
  pullRequest?: boolean;
  repoId?: number;
  fullName?: string;
  installationId?: number;
}): Json {
  const payload = example('issue_comment', (p) => p.action === 'created' && Boolean(p.installation));
  payload.comment.body = opts.body;
  payload.comment.id = opts.commentId;
  payload.comment.user.login = opts.login ?? payload.comment.user.login;
  payload.comment.user.id = opts.userId ?? payload.comment.user.id;
  payload.comment.user.type = 'User';
  payload.issue.number = opts.issueNumber ?? 1;
  if (opts.pullRequest === false) delete payload.issue.pull_request;
  else payload.issue.pull_request = { url: 'https://api.github.com/repos/x/y/pulls/1', html_url: 'https://github.com/x/y/pull/1', diff_url: '', patch_url: '' };
  payload.repository.id = opts.repoId ?? payload.repository.id;
  payload.repository.full_name = opts.fullName ?? payload.repository.full_name;
  payload.installation.id = opts.installationId ?? payload.installation.id;
  return payload;
}

/**
 * A pull_request example with an installation, adapted: action, number, head commit and branch, base branch
 * and repository; `fork` makes the head another repository (or, `'deleted'`, a fork since deleted).
 */
export function pullRequestPayload(opts: {
  action: 'opened' | 'reopened' | 'synchronize' | 'closed' | 'edited' | 'labeled';
  number: number;
  sha: string;
  headRef?: string;
  baseRef?: string;
  title?: string;
  login?: string;
  fork?: boolean | 'deleted';
  merged?: boolean;
  repoId?: number;
  fullName?: string;
  installationId?: number;
}): Json {
  const source = opts.action === 'closed' || opts.action === 'reopened' || opts.action === 'synchronize' ? opts.action : 'opened';
  const payload = example('pull_request', (p) => p.action === source && Boolean(p.installation));
  payload.action = opts.action;
  payload.number = opts.number;
  const pr = payload.pull_request;
  pr.number = opts.number;
  pr.title = opts.title ?? pr.title;
  pr.user.login = opts.login ?? pr.user.login;
  pr.state = opts.action === 'closed' ? 'closed' : 'open';
  pr.merged = opts.merged ?? false;
  pr.head.sha = opts.sha;
  pr.head.ref = opts.headRef ?? pr.head.ref;
  pr.base.ref = opts.baseRef ?? 'main';
  const repoId = opts.repoId ?? payload.repository.id;
  const fullName = opts.fullName ?? payload.repository.full_name;
  for (const repo of [payload.repository, pr.base.repo]) {
    repo.id = repoId;
    repo.full_name = fullName;
    repo.html_url = `https://github.com/${fullName}`;
  }
  if (opts.fork === 'deleted') pr.head.repo = null;
  else if (opts.fork) {
    pr.head.repo = {
      ...pr.base.repo,
      id: repoId + 1000,
      full_name: `forker/${fullName.split('/')[1]}`,
      html_url: `https://github.com/forker/${fullName.split('/')[1]}`,
    };
    pr.head.label = `forker:${pr.head.ref}`;
  } else {
    pr.head.repo = { ...pr.base.repo };
  }
  payload.installation.id = opts.installationId ?? payload.installation.id;
  return payload;
}

/** A signed delivery: headers and exact body bytes. */
export function signedDelivery(
  secret: string,
  event: string,
  payload: unknown,
  options: { id?: string; signatureSecret?: string } = {},
): { headers: Record<string, string>; body: string; id: string } {
  const body = JSON.stringify(payload);
  const id = options.id ?? randomUUID();
  const signature = `sha256=${createHmac('sha256', options.signatureSecret ?? secret)
    .update(body)
    .digest('hex')}`;
  return {
    id,
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': id,
      'x-hub-signature-256': signature,
      'user-agent': 'GitHub-Hookshot/test',
    },
  };
}

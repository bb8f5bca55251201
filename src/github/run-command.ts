// PR comment commands: 👀 on receipt; the commenter's permission is read from the API (never from
// author_association); a data restore needs the exact phrase (otherwise the reply says what would be
// lost); the rollback runs through the releases feature; then a reply and 🚀 or 👎. Audited.
import { isSvcError } from '../core/errors.js';
import type { FeatureContext } from '../core/feature-context.js';
import { appendAudit } from '../audit/append-audit.js';
import { findProject, type ProjectRow } from '../projects/index.js';
import { restoreConfirmation } from '../releases/contract.js';
import { listReleases, toRelease, type RollbackInput, type RollbackResult } from '../releases/index.js';
import { claimCommand, setCommandReply, setCommandState, type CommandOutcome } from './command-store.js';
import type { GithubClient, GithubOctokit } from './create-github-app.js';
import { linksOfRepository, type LinkRow } from './link-store.js';
import { commandHelp, parseCommand, type SvcCommand } from './parse-command.js';
import { splitFullName } from './sync-github.js';

/** The fields of an issue_comment payload svc reads. */
export interface CommentPayload {
  action: string;
  comment: { id: number; body: string; user: { login: string; id: number; type: string } };
  issue: { number: number; pull_request?: unknown };
  repository: { id: number; full_name: string };
  installation?: { id: number } | null;
}

export interface CommandDeps {
  ctx: FeatureContext;
  github: GithubClient;
  rollback: (input: RollbackInput) => Promise<RollbackResult>;
}

export type CommandResult = { outcome: 'ignored'; reason: string } | { outcome: 'replied'; ok: boolean; code: string };

/** Handle an issue_comment delivery (idempotent across retries). */
export async function runCommand(deps: CommandDeps, payload: CommentPayload): Promise<CommandResult> {
  if (payload.action !== 'created') return { outcome: 'ignored', reason: 'not_created' };
  if (payload.comment.user.type === 'Bot') return { outcome: 'ignored', reason: 'bot' };
  const parsed = parseCommand(payload.comment.body);
  if (parsed.type === 'none') return { outcome: 'ignored', reason: 'not_a_command' };
  if (!payload.issue.pull_request) return { outcome: 'ignored', reason: 'not_a_pull_request' };
  const installationId = payload.installation?.id;
  if (!installationId) return { outcome: 'ignored', reason: 'no_installation' };
  const links = linksOfRepository(deps.ctx, payload.repository.id);
  if (links.length === 0) return { outcome: 'ignored', reason: 'unlinked_repository' };

  const row = claimCommand(deps.ctx, payload.comment.id);
  if (row.state === 'done') return { outcome: 'ignored', reason: 'already_handled' };
  const octokit = await deps.github.installation(installationId);
  const { owner, repo } = splitFullName(payload.repository.full_name);
  const react = (content: 'eyes' | 'rocket' | '-1') =>
    octokit.request('POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', { owner, repo, comment_id: payload.comment.id, content });
  await react('eyes');

  let outcome: CommandOutcome;
  if (row.outcome) outcome = JSON.parse(row.outcome) as CommandOutcome;
  else if (row.state === 'executing') {
    outcome = {
      ok: false,
      code: 'interrupted',
      reply: 'svc restarted while running this command, so its outcome is unknown. Check the project with `svc releases` before retrying.',
    };
    setCommandState(deps.ctx, payload.comment.id, 'executing', outcome);
  } else {
    outcome = await decide(deps, octokit, payload, links, parsed.type === 'command' ? parsed.command : { error: parsed.message });
    setCommandState(deps.ctx, payload.comment.id, 'executing', outcome);
  }
  if (row.reply_id === null) {
    const reply = await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      owner,
      repo,
      issue_number: payload.issue.number,
      body: `@${payload.comment.user.login} ${outcome.reply}`,
    });
    setCommandReply(deps.ctx, payload.comment.id, Number(reply.data.id));
  }
  await react(outcome.ok ? 'rocket' : '-1');
  setCommandState(deps.ctx, payload.comment.id, 'done');
  return { outcome: 'replied', ok: outcome.ok, code: outcome.code };
}

/** Pick the link of the PR's base branch (or the repository's only link). */
async function linkFor(octokit: GithubOctokit, payload: CommentPayload, links: LinkRow[]): Promise<LinkRow | null> {
  const { owner, repo } = splitFullName(payload.repository.full_name);
  const base = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { owner, repo, pull_number: payload.issue.number }).then(
    (pull) => pull.data.base.ref,
    (error: unknown) => {
      if ((error as { status?: number }).status === 404) return null;
      throw error;
    },
  );
  return links.find((l) => l.branch === base) ?? (links.length === 1 ? links[0]! : null);
}

async function decide(
  deps: CommandDeps,
  octokit: GithubOctokit,
  payload: CommentPayload,
  links: LinkRow[],
  command: SvcCommand | { error: string },
): Promise<CommandOutcome> {
  const link = await linkFor(octokit, payload, links);
  const project = link ? findProject(deps.ctx, link.project_id) : undefined;
  if (!link || !project)
    return {
      ok: false,
      code: 'no_linked_project',
      reply: `No svc project is linked to the base branch of this pull request. Linked branches: ${links.map((l) => `\`${l.branch}\``).join(', ')}.`,
    };
  if ('error' in command)
    return audited(deps, payload, project, { ok: false, code: 'SVC_USAGE', reply: `${command.error}\n\n${commandHelp(project.slug)}` }, { command: 'invalid' });
  if (command.kind === 'help') return audited(deps, payload, project, { ok: true, code: 'help', reply: commandHelp(project.slug) }, { command: 'help' });

  const { owner, repo } = splitFullName(payload.repository.full_name);
  const username = payload.comment.user.login;
  // A user GitHub does not know as a collaborator (404) has no permission at all.
  const permission = await octokit.request('GET /repos/{owner}/{repo}/collaborators/{username}/permission', { owner, repo, username }).then(
    (perm) => perm.data.permission,
    (error: unknown) => {
      if ((error as { status?: number }).status === 404) return 'none';
      throw error;
    },
  );
  const allowed = link.rollback_permission === 'admin' ? permission === 'admin' : permission === 'admin' || permission === 'write';
  const meta = { command: 'rollback', releaseId: command.releaseId, restoreData: command.restoreData, permission };
  if (!allowed) {
    return audited(
      deps,
      payload,
      project,
      {
        ok: false,
        code: 'SVC_ROLLBACK_PERMISSION_REQUIRED',
        reply: `Rolling back **${project.slug}** needs ${link.rollback_permission} access to this repository; you have \`${permission}\`. Nothing was changed.`,
      },
      meta,
    );
  }
  const phrase = restoreConfirmation(project.slug);
  if (command.restoreData && command.confirm !== phrase) {
    return audited(
      deps,
      payload,
      project,
      { ok: false, code: 'SVC_RELEASE_CONFIRMATION_MISMATCH', reply: restoreWarning(deps.ctx, project, command.releaseId, command.confirm) },
      meta,
    );
  }
  setCommandState(deps.ctx, payload.comment.id, 'executing');
  try {
    const result = await deps.rollback({
      project: { id: project.id, slug: project.slug, organizationId: project.organization_id },
      actor: { type: 'github', id: `github:${payload.comment.user.id}`, name: username },
      releaseId: command.releaseId,
      restoreData: command.restoreData,
      ...(command.confirm === null ? {} : { confirm: command.confirm }),
    });
    const data = result.restoredData
      ? 'The database was restored from the pre-deploy snapshot; writes made after it are gone.'
      : 'The database is unchanged (code-only rollback).';
    return audited(
      deps,
      payload,
      project,
      {
        ok: true,
        code: 'rolled_back',
        reply: `✅ **${project.slug}** is back on \`${result.release.id}\`${result.previousReleaseId ? ` (was \`${result.previousReleaseId}\`)` : ''}. ${data}`,
      },
      meta,
    );
  } catch (error) {
    const code = isSvcError(error) ? error.code : 'SVC_INTERNAL';
    const message = isSvcError(error) ? error.message : 'internal error (see the svc logs)';
    if (!isSvcError(error)) deps.ctx.logger.error({ err: error }, 'PR rollback failed');
    return audited(
      deps,
      payload,
      project,
      {
        ok: false,
        code,
        reply: `❌ Rollback of **${project.slug}** to \`${command.releaseId}\` failed: \`${code}\` ${message}\nThe release that was active stays active.`,
      },
      meta,
    );
  }
}

function audited(deps: CommandDeps, payload: CommentPayload, project: ProjectRow, outcome: CommandOutcome, metadata: Record<string, unknown>): CommandOutcome {
  appendAudit(deps.ctx, {
    kind: 'github.command',
    organizationId: project.organization_id,
    projectId: project.id,
    actor: { type: 'github', id: `github:${payload.comment.user.id}`, name: payload.comment.user.login },
    metadata: {
      ...metadata,
      outcome: outcome.code,
      ok: outcome.ok,
      repository: payload.repository.full_name,
      pullRequest: payload.issue.number,
      commentId: payload.comment.id,
    },
  });
  return outcome;
}

/** What a data restore would do and lose, and the exact phrase to post (from the release list). */
export function restoreWarning(ctx: FeatureContext, project: ProjectRow, targetId: string, given: string | null): string {
  const releases = listReleases(ctx, project.id).map((row) => toRelease(ctx, row));
  const active = releases.find((r) => r.status === 'active');
  const phrase = restoreConfirmation(project.slug);
  const mismatch = given === null ? '' : `The phrase \`${given}\` does not match. `;
  if (!active) return `${mismatch}**${project.slug}** has no active release, so there is no pre-deploy snapshot to restore.`;
  if (active.predecessorId !== targetId) {
    return `${mismatch}Data can be restored only together with the immediately previous release (\`${active.predecessorId ?? 'none'}\`); \`${targetId}\` is not it. Use \`/svc rollback ${targetId}\` for a code-only rollback.`;
  }
  if (active.storage.snapshotBytes === null)
    return `${mismatch}The active release \`${active.id}\` has no pre-deploy snapshot; only a code-only rollback is possible.`;
  const since = active.activatedAt ?? active.finishedAt ?? active.createdAt;
  return [
    `${mismatch}⚠️ This rolls **${project.slug}** back to \`${targetId}\` **and replaces its database** with the snapshot taken before \`${active.id}\` went live.`,
    '',
    `- Snapshot: ${active.storage.snapshotBytes} bytes, taken during the deploy of \`${active.id}\` (between ${active.createdAt} and ${since})`,
    `- Lost: **every database write made since ${since}**. This cannot be undone.`,
    '',
    'To confirm, post exactly:',
    '',
    '```',
    `/svc rollback ${targetId} --restore-data --confirm "${phrase}"`,
    '```',
  ].join('\n');
}

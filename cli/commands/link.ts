// `svc link --repo owner/name --branch main`: tie the project to a repository branch through the
// svc GitHub App; pushes to that branch get svc/release checks and releases report back to GitHub.
// Without --repo it shows the current link, including whether it is broken (app removed/suspended).
import type { Command } from 'commander';
import { routePath } from '../../src/identity/contract.js';
import { githubRoutes, linkResponseSchema, type LinkResponse } from '../../src/github/contract.js';
import { SvcError } from '../../src/core/errors.js';
import { connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { formatPairs } from '../output.js';
import { resolveProjectRef } from '../project-link.js';

interface LinkOptions {
  repo?: string;
  branch?: string;
  rollbackPermission?: string;
  environment?: string;
  project?: string;
  server?: string;
}

/** Human lines describing a project's GitHub link (pure apart from colour). */
export function linkLines(ctx: Pick<CliContext, 'out'>, answer: LinkResponse): string[] {
  const link = answer.link;
  if (!link)
    return [
      answer.configured
        ? 'Not linked. Run `svc link --repo owner/name --branch main`.'
        : 'Not linked (this control plane has no GitHub App configured; see docs/github.md).',
    ];
  const status = link.status === 'ok' ? ctx.out.paint('green')('ok') : `${ctx.out.paint('red')('broken')}: ${link.problem?.message ?? ''}`;
  return formatPairs([
    ['Repository', `${link.repository.fullName} (id ${link.repository.id})`],
    ['Branch', link.branch],
    ['Installation', String(link.installationId)],
    ['Status', status],
    ['Rollback by comment', `needs ${link.rollbackPermission} access`],
    ['Environment', link.environment],
  ]);
}

async function link(ctx: CliContext, options: LinkOptions): Promise<void> {
  const ref = await resolveProjectRef(ctx.cwd, options.project);
  const { client } = await connect(ctx, { server: options.server });
  const path = routePath(githubRoutes.link, { id: ref.id });
  if (options.repo === undefined && options.branch === undefined) {
    const answer = await client.request({ method: 'GET', path, schema: linkResponseSchema });
    ctx.out.result(answer, () => linkLines(ctx, answer));
    return;
  }
  if (!options.repo || !options.branch) throw new SvcError('SVC_USAGE', 'Pass both --repo owner/name and --branch <branch>.');
  if (options.rollbackPermission !== undefined && !['write', 'admin'].includes(options.rollbackPermission))
    throw new SvcError('SVC_USAGE', '--rollback-permission is write or admin.');
  const body = {
    repository: options.repo,
    branch: options.branch,
    ...(options.rollbackPermission ? { rollbackPermission: options.rollbackPermission as 'write' | 'admin' } : {}),
    ...(options.environment ? { environment: options.environment } : {}),
  };
  const answer = await client.request({ method: 'PUT', path, body, schema: linkResponseSchema, idempotent: true });
  ctx.out.result(answer, () => [`${ctx.out.paint('green')('✓')} Linked to ${options.repo}@${options.branch}`, ...linkLines(ctx, answer).map((l) => `  ${l}`)]);
}

/** The `svc link` command. */
export const linkCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    program
      .command('link')
      .description('link the project to a GitHub repository branch (svc GitHub App); without --repo, show the link')
      .option('--repo <owner/name>', 'repository the svc GitHub App is installed on')
      .option('--branch <branch>', 'branch whose pushes are released (e.g. main)')
      .option('--rollback-permission <level>', 'repository access needed for /svc rollback comments: write (default) or admin')
      .option('--environment <name>', 'GitHub Deployments environment (default production)')
      .option('--project <project>', 'project id or slug (default: the link in .svc/project.json)')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action((options: LinkOptions) => link(ctx, options));
  },
};

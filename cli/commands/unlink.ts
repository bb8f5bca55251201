// `svc unlink`: remove the project's GitHub link (checks and PR commands stop; history stays).
import type { Command } from 'commander';
import { routePath } from '../../src/identity/contract.js';
import { githubRoutes, linkResponseSchema } from '../../src/github/contract.js';
import { connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { resolveProjectRef } from '../project-link.js';

async function unlink(ctx: CliContext, options: { project?: string; server?: string }): Promise<void> {
  const ref = await resolveProjectRef(ctx.cwd, options.project);
  const { client } = await connect(ctx, { server: options.server });
  const answer = await client.request({ method: 'DELETE', path: routePath(githubRoutes.link, { id: ref.id }), schema: linkResponseSchema, idempotent: false });
  ctx.out.result(answer, () => [`${ctx.out.paint('green')('✓')} Unlinked; pushes no longer create releases or checks.`]);
}

/** The `svc unlink` command. */
export const unlinkCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    program
      .command('unlink')
      .description('remove the GitHub link of the project')
      .option('--project <project>', 'project id or slug (default: the link in .svc/project.json)')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action((options: { project?: string; server?: string }) => unlink(ctx, options));
  },
};

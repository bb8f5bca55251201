// `svc domains` (list, the default), `svc domains add <domain>`, `svc domains remove <domain>`.
import type { Command } from 'commander';
import { routePath } from '../../src/identity/contract.js';
import {
  domainListResponseSchema,
  domainResponseSchema,
  domainRoutes,
  removeDomainResponseSchema,
  type DomainListResponse,
} from '../../src/projects/contract.js';
import { connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { formatTable } from '../format-table.js';
import { resolveProjectRef } from '../project-link.js';

interface DomainOptions {
  project?: string;
  server?: string;
}

/** Human table of domains (pure). */
export function domainRows(list: DomainListResponse): string[] {
  return [
    `Default host: ${list.defaultHost}`,
    ...(list.domains.length === 0
      ? ['No custom domains.']
      : formatTable(
          ['domain', 'added'],
          list.domains.map((d) => [d.domain, d.createdAt]),
        )),
  ];
}

async function target(ctx: CliContext, options: DomainOptions) {
  const ref = await resolveProjectRef(ctx.cwd, options.project);
  const { client } = await connect(ctx, { server: options.server });
  return { ref, client };
}

/** The `svc domains` command group. */
export const domainsCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    const group = program.command('domains').description('custom domains of the linked project');
    const common = (cmd: Command) =>
      cmd
        .option('--project <project>', 'project id or slug (default: the link in .svc/project.json)')
        .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)');
    common(group.command('list', { isDefault: true }).description('list custom domains (default)')).action(async (options: DomainOptions) => {
      const { ref, client } = await target(ctx, options);
      const list = await client.request({ method: 'GET', path: routePath(domainRoutes.domains, { id: ref.id }), schema: domainListResponseSchema });
      ctx.out.result(list, () => domainRows(list));
    });
    common(group.command('add <domain>').description('route a custom domain to the project (point its DNS at your edge proxy)')).action(
      async (domain: string, options: DomainOptions) => {
        const { ref, client } = await target(ctx, options);
        const answer = await client.request({
          method: 'POST',
          path: routePath(domainRoutes.domains, { id: ref.id }),
          body: { domain },
          schema: domainResponseSchema,
          idempotent: true,
        });
        ctx.out.result(answer, () => [`Added ${answer.domain.domain}.`]);
      },
    );
    common(group.command('remove <domain>').description('stop routing a custom domain')).action(async (domain: string, options: DomainOptions) => {
      const { ref, client } = await target(ctx, options);
      const answer = await client.request({
        method: 'DELETE',
        path: routePath(domainRoutes.domain, { id: ref.id, domain }),
        schema: removeDomainResponseSchema,
        idempotent: false,
      });
      ctx.out.result(answer, () => [`Removed ${answer.domain}.`]);
    });
  },
};

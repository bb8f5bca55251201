// `svc project delete [project-id] --confirm="delete-site <slug>" --acknowledge-data-loss`: permanent
// project deletion. The server checks everything again (account-wide credential, owner or administrator).
import type { Command } from 'commander';
import { routePath } from '../../src/identity/contract.js';
import { SvcError } from '../../src/core/errors.js';
import { backupListResponseSchema, backupRoutes } from '../../src/backups/contract.js';
import {
  deleteProjectResponseSchema,
  deleteSitePhrase,
  deletionPreview,
  deletionPreviewLines,
  domainListResponseSchema,
  domainRoutes,
  projectRoutes,
  type DeletionFacts,
} from '../../src/projects/contract.js';
import { releaseListResponseSchema, releaseRoutes } from '../../src/releases/contract.js';
import { ApiClient, connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { resolveProjectRef } from '../project-link.js';

interface DeleteOptions {
  confirm?: string;
  acknowledgeDataLoss?: boolean;
  server?: string;
}

async function deleteProject(ctx: CliContext, projectArg: string | undefined, options: DeleteOptions): Promise<void> {
  const ref = await resolveProjectRef(ctx.cwd, projectArg);
  const { client: base } = await connect(ctx, { server: options.server });
  const client = new ApiClient({ ...base.options, timeoutMs: 300_000 });
  if (options.acknowledgeDataLoss !== true || options.confirm === undefined) {
    const slug = ref.slug ?? (await client.getProject(ref.id)).project.slug;
    for (const line of deletionPreviewLines(deletionPreview(slug, await deletionFacts(client, ref.id)))) ctx.out.note(line);
    if (options.acknowledgeDataLoss !== true)
      throw new SvcError('SVC_DATA_LOSS_NOT_ACKNOWLEDGED', `Run again with --confirm="${deleteSitePhrase(slug)}" --acknowledge-data-loss.`);
    throw new SvcError('SVC_SITE_DELETE_CONFIRMATION_MISMATCH', `Run again with --confirm="${deleteSitePhrase(slug)}".`);
  }
  // Never retried automatically; the server's answer for a partial failure says to run it again.
  const answer = await client.request({
    method: 'DELETE',
    path: routePath(projectRoutes.project, { id: ref.id }),
    body: { confirm: options.confirm, acknowledgeDataLoss: true },
    schema: deleteProjectResponseSchema,
    idempotent: false,
  });
  ctx.out.result(answer, () => [
    `Deleted project ${answer.slug} (${answer.projectId}); ${answer.revokedTokens} project token(s) revoked. Audit event ${answer.auditEventId}.`,
  ]);
}

/** What the project holds, as far as this login may read it (a count it cannot read is left out). */
async function deletionFacts(client: ApiClient, id: string): Promise<DeletionFacts> {
  const get = <T>(read: () => Promise<T>) => read().catch(() => undefined);
  const [releases, backups, domains] = await Promise.all([
    get(() => client.request({ method: 'GET', path: routePath(releaseRoutes.releases, { id }), schema: releaseListResponseSchema })),
    get(() => client.request({ method: 'GET', path: routePath(backupRoutes.backups, { id }), schema: backupListResponseSchema })),
    get(() => client.request({ method: 'GET', path: routePath(domainRoutes.domains, { id }), schema: domainListResponseSchema })),
  ]);
  return {
    ...(releases ? { releases: releases.releases.length, databaseBytes: releases.storage.usage.databaseBytes } : {}),
    ...(backups ? { backups: backups.backups.length } : {}),
    ...(domains ? { domains: domains.domains.length } : {}),
  };
}

/** The `svc project` command group (project deletion). */
export const projectCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    const group = program.command('project').description('operations on one project');
    group
      .command('delete [project-id]')
      .description('delete a project permanently (needs an account-wide login, owner or administrator)')
      .option('--confirm <phrase>', 'exactly "delete-site <project-slug>"')
      .option('--acknowledge-data-loss', 'confirm that the database, releases, backups, secrets and logs are removed for good')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action((projectId: string | undefined, options: DeleteOptions) => deleteProject(ctx, projectId, options));
  },
};

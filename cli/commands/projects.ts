// `svc projects` (list, the default), `svc projects create <name>` and `svc projects show <id>`: the caller's projects over the API.
import type { Command } from 'commander';
import type { Project } from '../../src/projects/contract.js';
import { connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { formatTable, printable } from '../format-table.js';
import { formatPairs } from '../output.js';

interface ServerOption {
  server?: string;
}

/** Human table of projects, one per row. */
export function projectRows(projects: readonly Project[]): string[] {
  if (projects.length === 0) return ['No projects yet. Create one with `svc projects create <name>` or `svc deploy`.'];
  return formatTable(
    ['slug', 'name', 'id', 'organization', 'state', 'url'],
    projects.map((p) => [p.slug, p.name, p.id, p.organizationId, p.status.state, p.status.url]),
  );
}

async function listProjects(ctx: CliContext, options: ServerOption & { org?: string }): Promise<void> {
  const { client } = await connect(ctx, { server: options.server });
  const page = await client.listProjects(options.org);
  ctx.out.result(page, () => projectRows(page.projects));
}

async function createProject(ctx: CliContext, name: string, options: ServerOption & { slug?: string; org?: string }): Promise<void> {
  const { client } = await connect(ctx, { server: options.server });
  const created = await client.createProject({ name, slug: options.slug, organizationId: options.org });
  ctx.out.result(created, () => [`Created project ${created.project.slug} (${created.project.id}).`, `URL: ${created.project.status.url}`]);
}

async function showProject(ctx: CliContext, id: string, options: ServerOption): Promise<void> {
  const { client } = await connect(ctx, { server: options.server });
  const found = await client.getProject(id);
  const p = found.project;
  ctx.out.result(found, () =>
    formatPairs([
      ['slug', p.slug],
      ['name', p.name],
      ['id', p.id],
      ['organization', p.organizationId],
      ['state', p.status.state],
      ['active release', p.status.activeReleaseId ?? '-'],
      ['url', p.status.url],
      ['created', p.createdAt],
    ]).map(printable),
  );
}

/** The `svc projects` command group. */
export const projectsCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    const group = program.command('projects').description('list and create projects');
    group
      .command('list', { isDefault: true })
      .description('list the projects you can see (default)')
      .option('--org <organization>', 'only this organization (id or slug)')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action((options: ServerOption & { org?: string }) => listProjects(ctx, options));
    group
      .command('create <name>')
      .description('create an empty project')
      .option('--slug <slug>', 'URL slug (default derived from the name)')
      .option('--org <organization>', 'owning organization (id or slug; default your personal organization)')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action((name: string, options: ServerOption & { slug?: string; org?: string }) => createProject(ctx, name, options));
    group
      .command('show <project>')
      .description('show one project (id or slug) and its status')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action((id: string, options: ServerOption) => showProject(ctx, id, options));
  },
};

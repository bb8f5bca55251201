// First-deploy linking: use `.svc/project.json` when present, otherwise create a project over the
// API (name/slug/org from flags, defaults from the directory name) and write the link atomically.
import { basename } from 'node:path';
import type { Project } from '../src/projects/contract.js';
import type { ApiClient } from './api-client.js';
import type { CliContext } from './context.js';
import { readProjectLink, writeProjectLink, PROJECT_LINK_FILE, type ProjectLink } from './project-link.js';

/** Flags of `svc deploy` that shape a newly created project. */
export interface LinkFlags {
  name?: string | undefined;
  slug?: string | undefined;
  org?: string | undefined;
}

/** The link to deploy to; `project` is set when this call created the project. */
export interface EnsuredLink {
  link: ProjectLink;
  created: Project | undefined;
}

/** Return the app directory's link, creating and linking a project on the first deploy. */
export async function ensureProjectLink(ctx: CliContext, client: ApiClient, server: string, appDir: string, flags: LinkFlags): Promise<EnsuredLink> {
  const existing = await readProjectLink(appDir);
  if (existing) {
    const ignored = (['name', 'slug', 'org'] as const).filter((flag) => flags[flag] !== undefined);
    if (ignored.length > 0) {
      ctx.out.note(
        `Already linked to ${existing.slug} (${PROJECT_LINK_FILE}); ignoring ${ignored.map((f) => `--${f}`).join(', ')}. Delete the link file to create a new project.`,
      );
    }
    if (existing.server !== server)
      ctx.out.note(`Note: ${PROJECT_LINK_FILE} was created against ${existing.server}; deploying project ${existing.projectId} on ${server}.`);
    return { link: existing, created: undefined };
  }
  const name = flags.name ?? basename(appDir);
  const { project } = await client.createProject({ name, slug: flags.slug, organizationId: flags.org });
  const link: ProjectLink = {
    version: 1,
    projectId: project.id,
    slug: project.slug,
    name: project.name,
    organizationId: project.organizationId,
    server,
    linkedAt: new Date(ctx.clock.now()).toISOString(),
  };
  await writeProjectLink(appDir, link);
  ctx.out.note(`${ctx.out.paint('green')('✓')} Created project ${project.slug} (${project.id}) and linked it in ${PROJECT_LINK_FILE}`);
  return { link, created: project };
}

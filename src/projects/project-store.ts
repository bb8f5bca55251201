import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FeatureContext } from '../core/feature-context.js';
import { isoTime } from '../core/feature-context.js';
import type { Project } from './contract.js';

export interface ProjectRow {
  id: string;
  slug: string;
  name: string;
  organization_id: string;
  state: string;
  active_release_id: string | null;
  created_by: string | null;
  created_at: number;
}

/** `<data>/projects/<projectId>`: database, releases, snapshots, secrets and logs live below it. */
export function projectRoot(dataDir: string, projectId: string): string {
  return join(dataDir, 'projects', projectId);
}

/** Default app URL: `<slug>.<appDomain>` on the platform's scheme and port. Pure. */
export function projectUrl(platformOrigin: string, slug: string, appDomain: string): string {
  const url = new URL(platformOrigin);
  return `${url.protocol}//${slug}.${appDomain}${url.port ? `:${url.port}` : ''}`;
}

/** Wire shape of a project including its status. */
export function toProject(row: ProjectRow, platformOrigin: string, appDomain: string): Project {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    organizationId: row.organization_id,
    createdAt: isoTime(row.created_at),
    status: { state: row.state, activeReleaseId: row.active_release_id, url: projectUrl(platformOrigin, row.slug, appDomain) },
  };
}

/** A project by id or slug. */
export function findProject(ctx: FeatureContext, idOrSlug: string): ProjectRow | undefined {
  return ctx.db.prepare('SELECT * FROM projects WHERE id = ? OR slug = ?').get(idOrSlug, idOrSlug) as ProjectRow | undefined;
}

/** Projects of the given organizations, oldest first. */
export function listProjects(ctx: FeatureContext, organizationIds: readonly string[]): ProjectRow[] {
  if (organizationIds.length === 0) return [];
  return ctx.db.prepare(`SELECT * FROM projects WHERE organization_id IN (${organizationIds.map(() => '?').join(',')}) ORDER BY created_at, id`).all(...organizationIds) as ProjectRow[];
}

/**
 * Insert a project and create its private root directory inside the caller's transaction. If the
 * directory cannot be created the transaction rolls back; if the commit fails the caller removes it.
 */
export function insertProject(ctx: FeatureContext, input: { slug: string; name: string; organizationId: string; createdBy: string }): ProjectRow {
  const row: ProjectRow = {
    id: ctx.ids('prj'),
    slug: input.slug,
    name: input.name,
    organization_id: input.organizationId,
    state: 'new',
    active_release_id: null,
    created_by: input.createdBy,
    created_at: ctx.clock.now(),
  };
  ctx.db
    .prepare('INSERT INTO projects (id, slug, name, organization_id, state, active_release_id, created_by, created_at) VALUES (@id, @slug, @name, @organization_id, @state, @active_release_id, @created_by, @created_at)')
    .run(row);
  mkdirSync(join(ctx.config.dataDir, 'projects'), { recursive: true, mode: 0o700 });
  mkdirSync(projectRoot(ctx.config.dataDir, row.id), { mode: 0o700 });
  return row;
}

/** Remove a project root created by a transaction that then failed to commit. */
export function removeProjectRoot(dataDir: string, projectId: string): void {
  rmSync(projectRoot(dataDir, projectId), { recursive: true, force: true });
}

/** Record a project's active release and state (the releases feature calls this inside its transactions). */
export function setProjectRelease(ctx: FeatureContext, projectId: string, activeReleaseId: string | null, state: 'new' | 'active' | 'failed'): void {
  ctx.db.prepare('UPDATE projects SET active_release_id = ?, state = ? WHERE id = ?').run(activeReleaseId, state, projectId);
}

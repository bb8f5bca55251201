import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FeatureContext } from '../core/feature-context.js';
import { isoTime } from '../core/feature-context.js';
import type { Role } from '../identity/contract.js';
import type { Project } from './contract.js';
import { cachedStatement } from '../core/control-db.js';

export interface ProjectRow {
  id: string;
  slug: string;
  name: string;
  organization_id: string;
  state: string;
  active_release_id: string | null;
  created_by: string | null;
  created_at: number;
  /** The production project of a pull-request preview (null for every other project). */
  preview_of?: string | null;
}

/** `<data>/projects/<projectId>`: database, releases, snapshots, secrets and logs live below it. */
export function projectRoot(dataDir: string, projectId: string): string {
  return join(dataDir, 'projects', projectId);
}

// The last origin parsed by projectUrl: list responses build one URL per project from the same origin.
let lastOrigin: { origin: string; protocol: string; port: string } | undefined;

/** Default app URL: `<slug>.<appDomain>` on the platform's scheme and port. Pure. */
export function projectUrl(platformOrigin: string, slug: string, appDomain: string): string {
  if (lastOrigin?.origin !== platformOrigin) {
    const url = new URL(platformOrigin);
    lastOrigin = { origin: platformOrigin, protocol: url.protocol, port: url.port };
  }
  return `${lastOrigin.protocol}//${slug}.${appDomain}${lastOrigin.port ? `:${lastOrigin.port}` : ''}`;
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
  return cachedStatement(ctx.db, 'SELECT * FROM projects WHERE id = ? OR slug = ?').get(idOrSlug, idOrSlug) as ProjectRow | undefined;
}

/** Projects of the given organizations, oldest first. */
export function listProjects(ctx: FeatureContext, organizationIds: readonly string[]): ProjectRow[] {
  if (organizationIds.length === 0) return [];
  return cachedStatement(ctx.db, `SELECT * FROM projects WHERE organization_id IN (${organizationIds.map(() => '?').join(',')}) ORDER BY created_at, id`).all(
    ...organizationIds,
  ) as ProjectRow[];
}

/** A project together with the caller's current role in its organization (read in the same query). */
export type MemberProjectRow = ProjectRow & { member_role: Role };

// Raw rows (arrays) for the hottest list: the driver then builds no keyed object per row; the column order is the contract.
const MEMBER_PROJECTS_SQL =
  'SELECT p.id, p.slug, p.name, p.organization_id, p.state, p.active_release_id, p.created_by, p.created_at, m.role ' +
  'FROM memberships m JOIN projects p ON p.organization_id = m.organization_id WHERE m.user_id = ? AND p.preview_of IS NULL ORDER BY p.created_at, p.id';

type MemberProjectRaw = [string, string, string, string, string, string | null, string | null, number, Role];

/** Projects of every organization `userId` is a member of right now (previews are listed by their production project), each with that membership's role, oldest first. */
export function listMemberProjects(ctx: FeatureContext, userId: string): MemberProjectRow[] {
  const rows = cachedStatement(ctx.db, MEMBER_PROJECTS_SQL, { raw: true }).all(userId) as MemberProjectRaw[];
  return rows.map((r) => ({
    id: r[0],
    slug: r[1],
    name: r[2],
    organization_id: r[3],
    state: r[4],
    active_release_id: r[5],
    created_by: r[6],
    created_at: r[7],
    member_role: r[8],
  }));
}

/**
 * Insert a project and create its private root directory inside the caller's transaction. If the
 * directory cannot be created the transaction rolls back; if the commit fails the caller removes it.
 */
export function insertProject(
  ctx: FeatureContext,
  input: { slug: string; name: string; organizationId: string; createdBy: string | null; previewOf?: string },
): ProjectRow {
  const row: ProjectRow = {
    id: ctx.ids('prj'),
    slug: input.slug,
    name: input.name,
    organization_id: input.organizationId,
    state: 'new',
    active_release_id: null,
    created_by: input.createdBy,
    created_at: ctx.clock.now(),
    preview_of: input.previewOf ?? null,
  };
  cachedStatement(
    ctx.db,
    'INSERT INTO projects (id, slug, name, organization_id, state, active_release_id, created_by, created_at, preview_of) VALUES (@id, @slug, @name, @organization_id, @state, @active_release_id, @created_by, @created_at, @preview_of)',
  ).run(row);
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
  cachedStatement(ctx.db, 'UPDATE projects SET active_release_id = ?, state = ? WHERE id = ?').run(activeReleaseId, state, projectId);
}

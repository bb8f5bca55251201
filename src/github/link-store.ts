// Links: a project ↔ one repository branch through one installation. A link whose installation was
// removed or suspended, or that lost the repository, is reported as broken (never silently ignored).
import type { FeatureContext } from '../core/feature-context.js';
import { findInstallation, installationHasRepo, type InstallationRow } from './installation-store.js';

type Ctx = Pick<FeatureContext, 'db' | 'clock'>;

export interface LinkRow {
  project_id: string;
  repository_id: number;
  full_name: string;
  branch: string;
  installation_id: number;
  rollback_permission: 'write' | 'admin';
  environment: string;
  created_by: string;
  created_at: number;
}

/** Why a link does not work, or null when it does. Pure. */
export function linkProblem(
  installation: Pick<InstallationRow, 'status'> | undefined,
  hasRepository: boolean,
): { reason: 'installation_missing' | 'installation_suspended' | 'repository_removed'; message: string } | null {
  if (!installation || installation.status === 'deleted')
    return { reason: 'installation_missing', message: 'The svc GitHub App was uninstalled from this account; install it again and re-link.' };
  if (installation.status === 'suspended')
    return { reason: 'installation_suspended', message: 'The svc GitHub App installation is suspended; unsuspend it in the GitHub settings.' };
  if (!hasRepository)
    return { reason: 'repository_removed', message: 'The repository was removed from the svc GitHub App installation; add it back in the GitHub settings.' };
  return null;
}

/** The problem of a stored link (reads the installation registry). */
export function problemOf(ctx: Ctx, link: LinkRow): ReturnType<typeof linkProblem> {
  return linkProblem(findInstallation(ctx, link.installation_id), installationHasRepo(ctx, link.installation_id, link.repository_id));
}

/** Create or replace the link of a project. */
export function saveLink(ctx: Ctx, input: Omit<LinkRow, 'created_at'>): LinkRow {
  ctx.db
    .prepare(
      `INSERT INTO github_links (project_id, repository_id, full_name, branch, installation_id, rollback_permission, environment, created_by, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (project_id) DO UPDATE SET repository_id = excluded.repository_id, full_name = excluded.full_name, branch = excluded.branch,
         installation_id = excluded.installation_id, rollback_permission = excluded.rollback_permission, environment = excluded.environment,
         created_by = excluded.created_by, created_at = excluded.created_at`,
    )
    .run(
      input.project_id,
      input.repository_id,
      input.full_name,
      input.branch,
      input.installation_id,
      input.rollback_permission,
      input.environment,
      input.created_by,
      ctx.clock.now(),
    );
  return findLink(ctx, input.project_id)!;
}

/** Remove the link of a project; true when there was one. */
export function deleteLink(ctx: Ctx, projectId: string): boolean {
  return ctx.db.prepare('DELETE FROM github_links WHERE project_id = ?').run(projectId).changes === 1;
}

/** The link of a project. */
export function findLink(ctx: Ctx, projectId: string): LinkRow | undefined {
  return ctx.db.prepare('SELECT * FROM github_links WHERE project_id = ?').get(projectId) as LinkRow | undefined;
}

/** The link of a repository branch. */
export function findLinkByBranch(ctx: Ctx, repositoryId: number, branch: string): LinkRow | undefined {
  return ctx.db.prepare('SELECT * FROM github_links WHERE repository_id = ? AND branch = ?').get(repositoryId, branch) as LinkRow | undefined;
}

/** Every link of a repository. */
export function linksOfRepository(ctx: Ctx, repositoryId: number): LinkRow[] {
  return ctx.db.prepare('SELECT * FROM github_links WHERE repository_id = ? ORDER BY branch').all(repositoryId) as LinkRow[];
}

/** Keep links' repository names current after a rename or transfer seen in a payload. */
export function renameRepository(ctx: Ctx, repositoryId: number, fullName: string): void {
  ctx.db.prepare('UPDATE github_links SET full_name = ? WHERE repository_id = ? AND full_name != ?').run(fullName, repositoryId, fullName);
}

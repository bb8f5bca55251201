// The registry of app installations and their repositories, kept current by `installation` and
// `installation_repositories` events (and by lookups when a link is created).
import type { FeatureContext } from '../core/feature-context.js';

type Ctx = Pick<FeatureContext, 'db' | 'clock'>;

export type InstallationStatus = 'active' | 'suspended' | 'deleted';

export interface InstallationRow {
  id: number;
  account_login: string;
  account_type: string | null;
  status: InstallationStatus;
  repository_selection: string | null;
  updated_at: number;
}

/** Insert or update an installation (status and account). */
export function upsertInstallation(
  ctx: Ctx,
  input: { id: number; accountLogin: string; accountType: string | null; status: InstallationStatus; repositorySelection: string | null },
): void {
  ctx.db
    .prepare(
      `INSERT INTO github_installations (id, account_login, account_type, status, repository_selection, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET account_login = excluded.account_login, account_type = excluded.account_type, status = excluded.status,
         repository_selection = COALESCE(excluded.repository_selection, github_installations.repository_selection), updated_at = excluded.updated_at`,
    )
    .run(input.id, input.accountLogin, input.accountType, input.status, input.repositorySelection, ctx.clock.now());
}

/** Set the status of a known installation (suspend, unsuspend, delete). */
export function setInstallationStatus(ctx: Ctx, id: number, status: InstallationStatus): void {
  ctx.db.prepare('UPDATE github_installations SET status = ?, updated_at = ? WHERE id = ?').run(status, ctx.clock.now(), id);
}

/** Add repositories to an installation (idempotent; a renamed repository keeps its id). */
export function addInstallationRepos(ctx: Ctx, installationId: number, repos: readonly { id: number; full_name: string }[]): void {
  const stmt = ctx.db.prepare(
    'INSERT INTO github_installation_repos (installation_id, repository_id, full_name) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET full_name = excluded.full_name',
  );
  for (const repo of repos) stmt.run(installationId, repo.id, repo.full_name);
}

/** Remove repositories from an installation. */
export function removeInstallationRepos(ctx: Ctx, installationId: number, repoIds: readonly number[]): void {
  const stmt = ctx.db.prepare('DELETE FROM github_installation_repos WHERE installation_id = ? AND repository_id = ?');
  for (const id of repoIds) stmt.run(installationId, id);
}

/** Replace the repository list of an installation (installation.created lists them all). */
export function replaceInstallationRepos(ctx: Ctx, installationId: number, repos: readonly { id: number; full_name: string }[]): void {
  ctx.db.prepare('DELETE FROM github_installation_repos WHERE installation_id = ?').run(installationId);
  addInstallationRepos(ctx, installationId, repos);
}

/** An installation by id. */
export function findInstallation(ctx: Ctx, id: number): InstallationRow | undefined {
  return ctx.db.prepare('SELECT * FROM github_installations WHERE id = ?').get(id) as InstallationRow | undefined;
}

/** Every known installation, with its repositories. */
export function listInstallations(ctx: Ctx): (InstallationRow & { repositories: { id: number; fullName: string }[] })[] {
  const rows = ctx.db.prepare('SELECT * FROM github_installations ORDER BY account_login').all() as InstallationRow[];
  const repos = ctx.db.prepare('SELECT repository_id AS id, full_name AS fullName FROM github_installation_repos WHERE installation_id = ? ORDER BY full_name');
  return rows.map((row) => ({ ...row, repositories: repos.all(row.id) as { id: number; fullName: string }[] }));
}

/** The installation (and repository id) that covers a repository, by full name (case-insensitive). */
export function findRepository(
  ctx: Ctx,
  fullName: string,
): { installationId: number; repositoryId: number; fullName: string; status: InstallationStatus } | undefined {
  return ctx.db
    .prepare(
      `SELECT r.installation_id AS installationId, r.repository_id AS repositoryId, r.full_name AS fullName, i.status AS status
       FROM github_installation_repos r JOIN github_installations i ON i.id = r.installation_id
       WHERE lower(r.full_name) = lower(?) ORDER BY (i.status = 'active') DESC LIMIT 1`,
    )
    .get(fullName) as { installationId: number; repositoryId: number; fullName: string; status: InstallationStatus } | undefined;
}

/** Whether an installation currently includes a repository. */
export function installationHasRepo(ctx: Ctx, installationId: number, repositoryId: number): boolean {
  return (
    ctx.db.prepare('SELECT 1 FROM github_installation_repos WHERE installation_id = ? AND repository_id = ?').get(installationId, repositoryId) !== undefined
  );
}

// Link routes: `svc link` / `svc unlink` and the console. Linking needs the project's `deploy` and
// `rollback` permissions (a link lets repository writers roll back by PR comment). The repository is
// found in the installation registry, or asked of GitHub when svc missed the installation event.
import { z } from 'zod';
import { bearerOrSession, type HttpApp } from '../core/http/create-http-app.js';
import { SvcError } from '../core/errors.js';
import { isoTime, type FeatureContext } from '../core/feature-context.js';
import { appendAudit } from '../audit/append-audit.js';
import { actorOf, authenticate } from '../identity/index.js';
import { requireProjectPermission } from '../projects/index.js';
import { githubRoutes, installationsResponseSchema, linkBodySchema, linkResponseSchema, type GithubLink } from './contract.js';
import type { CheckModel } from './check-model.js';
import { listChecks } from './check-store.js';
import type { GithubClient } from './create-github-app.js';
import { addInstallationRepos, findRepository, listInstallations, upsertInstallation } from './installation-store.js';
import { deleteLink, findLink, findLinkByBranch, problemOf, saveLink, type LinkRow } from './link-store.js';
import { splitFullName } from './sync-github.js';

const tags = ['github'];
const security = bearerOrSession;
const params = z.object({ id: z.string().min(1).max(100).describe('project id or slug') });

/** Wire shape of a link with its health. */
export function toLink(ctx: FeatureContext, row: LinkRow): GithubLink {
  const problem = problemOf(ctx, row);
  return {
    projectId: row.project_id,
    repository: { id: row.repository_id, fullName: row.full_name },
    branch: row.branch,
    installationId: row.installation_id,
    rollbackPermission: row.rollback_permission,
    environment: row.environment,
    createdAt: isoTime(row.created_at),
    status: problem ? 'broken' : 'ok',
    problem,
  };
}

/** Ask GitHub which installation covers a repository (app JWT), and record it. Null when not installed. */
async function lookupRepository(ctx: FeatureContext, github: GithubClient, fullName: string) {
  const { owner, repo } = splitFullName(fullName);
  try {
    const appOctokit = await github.app();
    const installation = await appOctokit.request('GET /repos/{owner}/{repo}/installation', { owner, repo });
    const octokit = await github.installation(installation.data.id);
    const repository = await octokit.request('GET /repos/{owner}/{repo}', { owner, repo });
    const account = installation.data.account as { login?: string; type?: string } | null;
    upsertInstallation(ctx, {
      id: installation.data.id,
      accountLogin: account?.login ?? owner,
      accountType: account?.type ?? null,
      status: installation.data.suspended_at ? 'suspended' : 'active',
      repositorySelection: installation.data.repository_selection,
    });
    addInstallationRepos(ctx, installation.data.id, [{ id: Number(repository.data.id), full_name: repository.data.full_name }]);
    return findRepository(ctx, repository.data.full_name);
  } catch (error) {
    if ((error as { status?: number }).status === 404) return undefined;
    throw new SvcError('SVC_UNAVAILABLE', `GitHub could not be asked about ${fullName}: ${(error as Error).message}`);
  }
}

/** Register the link and installation routes. */
export function linkRoutes(ctx: FeatureContext, github: () => GithubClient | null) {
  const response = (projectId: string) => {
    const link = findLink(ctx, projectId);
    const checks = listChecks(ctx, projectId, 20).map((c) => {
      const model = JSON.parse(c.model) as CheckModel;
      return {
        name: c.name,
        sha: c.sha,
        releaseId: c.release_id,
        state: model.state,
        checkRunId: c.check_run_id,
        synced: c.check_run_id !== null && c.synced_version >= c.version,
        updatedAt: isoTime(c.updated_at),
      };
    });
    return { configured: github() !== null, link: link ? toLink(ctx, link) : null, checks };
  };
  return async (app: HttpApp): Promise<void> => {
    app.get(
      githubRoutes.link,
      {
        schema: {
          tags,
          security,
          summary: "The project's GitHub link (with broken status) and its recent checks",
          params,
          response: { 200: linkResponseSchema },
        },
      },
      async (request) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        return response(project.id);
      },
    );

    app.put(
      githubRoutes.link,
      {
        schema: {
          tags,
          security,
          summary: 'Link the project to a repository branch (deploy + rollback permission)',
          params,
          body: linkBodySchema,
          response: { 200: linkResponseSchema },
        },
      },
      async (request) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'deploy');
        requireProjectPermission(ctx, request, request.params.id, 'rollback', { principal });
        const body = request.body;
        const client = github();
        let repo = findRepository(ctx, body.repository);
        if ((!repo || repo.status !== 'active') && client) repo = (await lookupRepository(ctx, client, body.repository)) ?? repo;
        if (!repo) {
          if (!client) throw new SvcError('SVC_GITHUB_NOT_CONFIGURED');
          throw new SvcError('SVC_GITHUB_REPOSITORY_NOT_INSTALLED', `The svc GitHub App is not installed on ${body.repository}.`);
        }
        if (repo.status !== 'active')
          throw new SvcError('SVC_GITHUB_REPOSITORY_NOT_INSTALLED', `The installation covering ${repo.fullName} is ${repo.status}.`);
        const other = findLinkByBranch(ctx, repo.repositoryId, body.branch);
        if (other && other.project_id !== project.id)
          throw new SvcError('SVC_GITHUB_BRANCH_TAKEN', `${repo.fullName}@${body.branch} is linked to another project.`);
        ctx.db
          .transaction(() => {
            saveLink(ctx, {
              project_id: project.id,
              repository_id: repo.repositoryId,
              full_name: repo.fullName,
              branch: body.branch,
              installation_id: repo.installationId,
              rollback_permission: body.rollbackPermission,
              environment: body.environment,
              created_by: principal.user.id,
            });
            appendAudit(ctx, {
              kind: 'github.link',
              organizationId: project.organization_id,
              projectId: project.id,
              actor: actorOf(principal),
              metadata: {
                repository: repo.fullName,
                repositoryId: repo.repositoryId,
                branch: body.branch,
                installationId: repo.installationId,
                rollbackPermission: body.rollbackPermission,
              },
            });
          })
          .immediate();
        return response(project.id);
      },
    );

    app.delete(
      githubRoutes.link,
      { schema: { tags, security, summary: 'Unlink the project from its repository', params, response: { 200: linkResponseSchema } } },
      async (request) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'deploy');
        ctx.db
          .transaction(() => {
            const link = findLink(ctx, project.id);
            if (!link) throw new SvcError('SVC_GITHUB_LINK_NOT_FOUND');
            deleteLink(ctx, project.id);
            appendAudit(ctx, {
              kind: 'github.unlink',
              organizationId: project.organization_id,
              projectId: project.id,
              actor: actorOf(principal),
              metadata: { repository: link.full_name, branch: link.branch },
            });
          })
          .immediate();
        return response(project.id);
      },
    );

    app.get(
      githubRoutes.installations,
      { schema: { tags, security, summary: 'Installations of the GitHub App known to svc', response: { 200: installationsResponseSchema } } },
      async (request) => {
        authenticate(ctx, request);
        return {
          configured: github() !== null,
          installations: listInstallations(ctx).map((i) => ({ id: i.id, account: i.account_login, status: i.status, repositories: i.repositories })),
        };
      },
    );
  };
}

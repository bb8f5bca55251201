// Queue handlers that make GitHub match svc's records: one check run per check row (created once,
// then patched to the latest model) and one deployment per release with its statuses in order.
// Idempotent: a retried job finds what it already created instead of creating it twice.
import type { FeatureContext } from '../core/feature-context.js';
import { appUrlOf as appUrlFor, configuredOrigin, findProject } from '../projects/index.js';
import { findRelease, toRelease } from '../releases/index.js';
import { renderCheck, type CheckModel } from './check-model.js';
import { findCheck, markCheckSynced, type CheckRow } from './check-store.js';
import type { GithubClient } from './create-github-app.js';
import { findDeployment, setDeploymentId, setDeploymentPosted, type DeploymentStatus } from './deployment-store.js';

export interface SyncDeps {
  ctx: FeatureContext;
  github: GithubClient;
  actionRef: string;
}

/** `owner/name` → `{ owner, repo }`. */
export function splitFullName(fullName: string): { owner: string; repo: string } {
  const [owner = '', repo = ''] = fullName.split('/');
  return { owner, repo };
}

/** The platform origin links point at: SVC_PUBLIC_URL, else the listen address (null when unknown). */
export function linkOrigin(ctx: FeatureContext): string | null {
  return configuredOrigin(ctx.config);
}

/** The app URL of a project (environment_url), or null without a known origin. */
export function appUrlOf(ctx: FeatureContext, slug: string): string | null {
  return appUrlFor(ctx.config, slug);
}

/** The console page of a release (details_url), or null without a known origin. */
export function detailsUrlOf(ctx: FeatureContext, projectId: string, releaseId: string | undefined): string | null {
  const origin = linkOrigin(ctx);
  if (!origin) return null;
  return releaseId ? `${origin}/projects/${projectId}/releases/${releaseId}` : `${origin}/projects/${projectId}`;
}

/** The check-run body of a check row as of now. */
export function checkBodyOf(deps: SyncDeps, row: CheckRow) {
  const model = JSON.parse(row.model) as CheckModel;
  // A preview's releases live in the preview's own project; its check sits on the linked project's commit.
  const releaseProjectId = model.kind === 'preview' ? (model.previewProjectId ?? row.project_id) : row.project_id;
  const project = findProject(deps.ctx, releaseProjectId);
  const releaseId = model.releaseId;
  const releaseRow = releaseId ? findRelease(deps.ctx, releaseProjectId, releaseId) : undefined;
  const slug = model.kind === 'preview' ? model.previewSlug : (project?.slug ?? row.project_id);
  return renderCheck(model, {
    release: releaseRow ? toRelease(deps.ctx, releaseRow) : undefined,
    projectSlug: slug,
    appUrl: model.kind === 'preview' ? model.url : appUrlOf(deps.ctx, slug),
    detailsUrl: detailsUrlOf(deps.ctx, releaseProjectId, releaseId),
    actionRef: deps.actionRef,
    serverUrl: linkOrigin(deps.ctx),
  });
}

/** Create or update the check run of a check row. */
export async function syncCheck(deps: SyncDeps, checkId: string, retried: boolean): Promise<void> {
  const row = findCheck(deps.ctx, checkId);
  if (!row || (row.check_run_id !== null && row.synced_version >= row.version)) return;
  const version = row.version;
  const body = { ...checkBodyOf(deps, row), external_id: row.id };
  const octokit = await deps.github.installation(row.installation_id);
  const { owner, repo } = splitFullName(row.full_name);
  let checkRunId = row.check_run_id;
  if (checkRunId === null && retried) checkRunId = await findExistingCheckRun(deps, row);
  if (checkRunId === null) {
    const created = await octokit.request('POST /repos/{owner}/{repo}/check-runs', { owner, repo, name: row.name, head_sha: row.sha, ...body });
    markCheckSynced(deps.ctx, row.id, Number(created.data.id), version);
    return;
  }
  await octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', { owner, repo, check_run_id: checkRunId, ...body });
  markCheckSynced(deps.ctx, row.id, checkRunId, version);
}

// A retry after a crash between "created" and "recorded": find the run by its external_id.
async function findExistingCheckRun(deps: SyncDeps, row: CheckRow): Promise<number | null> {
  const octokit = await deps.github.installation(row.installation_id);
  const { owner, repo } = splitFullName(row.full_name);
  const list = await octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
    owner,
    repo,
    ref: row.sha,
    check_name: row.name,
    filter: 'all',
    per_page: 100,
  });
  const found = list.data.check_runs.find((run) => run.external_id === row.id);
  return found ? Number(found.id) : null;
}

/** Create the deployment of a release if needed, then post every status GitHub does not have yet. */
export async function syncDeployment(deps: SyncDeps, releaseId: string): Promise<void> {
  const row = findDeployment(deps.ctx, releaseId);
  if (!row) return;
  const statuses = JSON.parse(row.statuses) as DeploymentStatus[];
  if (row.deployment_id !== null && row.posted >= statuses.length) return;
  const octokit = await deps.github.installation(row.installation_id);
  const { owner, repo } = splitFullName(row.full_name);
  let deploymentId = row.deployment_id;
  if (deploymentId === null) {
    const created = await octokit.request('POST /repos/{owner}/{repo}/deployments', {
      owner,
      repo,
      ref: row.sha,
      task: 'deploy',
      environment: row.environment,
      description: (row.description ?? `svc release ${releaseId}`).slice(0, 140),
      auto_merge: false,
      required_contexts: [],
      payload: row.payload ? (JSON.parse(row.payload) as Record<string, unknown>) : { releaseId, projectId: row.project_id },
      transient_environment: row.transient === 1,
      production_environment: row.transient !== 1 && row.environment === 'production',
    });
    const data = created.data as { id?: number };
    if (typeof data.id !== 'number') throw new Error(`GitHub did not create the deployment (status ${created.status})`);
    deploymentId = data.id;
    setDeploymentId(deps.ctx, releaseId, deploymentId);
  }
  for (let i = row.posted; i < statuses.length; i++) {
    const status = statuses[i]!;
    await octokit.request('POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses', {
      owner,
      repo,
      deployment_id: deploymentId,
      state: status.state,
      description: status.description.slice(0, 140),
      ...(status.environmentUrl ? { environment_url: status.environmentUrl } : {}),
      ...(status.logUrl ? { log_url: status.logUrl } : {}),
      auto_inactive: true,
    });
    setDeploymentPosted(deps.ctx, releaseId, i + 1);
  }
}

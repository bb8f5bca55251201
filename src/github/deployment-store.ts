// GitHub Deployments, one per release of a linked project (keyed by the release id) and one per head
// commit of a pull request's preview (keyed by previewDeploymentKey, transient): the statuses svc wants
// posted, in order, and how many GitHub already has. The queue posts the rest (create the deployment first).
import type { FeatureContext } from '../core/feature-context.js';
import { enqueueJob } from './job-queue.js';

type Ctx = Pick<FeatureContext, 'db' | 'clock'>;

export type DeploymentState = 'queued' | 'in_progress' | 'success' | 'failure' | 'error' | 'inactive';

export interface DeploymentStatus {
  state: DeploymentState;
  description: string;
  environmentUrl?: string | null;
  logUrl?: string | null;
}

export interface DeploymentRow {
  release_id: string;
  project_id: string;
  full_name: string;
  installation_id: number;
  sha: string;
  environment: string;
  deployment_id: number | null;
  statuses: string;
  posted: number;
  created_at: number;
  /** 1: a preview's environment (transient_environment, never production). */
  transient: number;
  /** The deployment's description and payload when not a release's (previews). */
  description: string | null;
  payload: string | null;
}

/** The deployment key of a pull request's preview at one head commit (never a release id). Pure. */
export function previewDeploymentKey(projectId: string, number: number, sha: string): string {
  return `pr:${projectId}:${number}:${sha}`;
}

function queueSync(ctx: Ctx, releaseId: string): void {
  enqueueJob(ctx, 'sync-deployment', { releaseId }, { lane: `deployment:${releaseId}`, dedupeKey: `deployment:${releaseId}` });
}

/** Create the deployment record of a release (idempotent). */
export function createDeployment(
  ctx: Ctx,
  input: {
    releaseId: string;
    projectId: string;
    fullName: string;
    installationId: number;
    sha: string;
    environment: string;
    first: DeploymentStatus;
    transient?: boolean;
    description?: string;
    payload?: Record<string, unknown>;
  },
): void {
  const inserted = ctx.db
    .prepare(
      `INSERT INTO github_deployments (release_id, project_id, full_name, installation_id, sha, environment, statuses, created_at, transient, description, payload)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    )
    .run(
      input.releaseId,
      input.projectId,
      input.fullName,
      input.installationId,
      input.sha,
      input.environment,
      JSON.stringify([input.first]),
      ctx.clock.now(),
      input.transient ? 1 : 0,
      input.description ?? null,
      input.payload ? JSON.stringify(input.payload) : null,
    );
  if (inserted.changes === 1) queueSync(ctx, input.releaseId);
}

/** Append a status (skipped when it repeats the last one). */
export function addDeploymentStatus(ctx: Ctx, releaseId: string, status: DeploymentStatus): void {
  const row = findDeployment(ctx, releaseId);
  if (!row) return;
  const statuses = JSON.parse(row.statuses) as DeploymentStatus[];
  const last = statuses.at(-1);
  if (last && last.state === status.state && last.description === status.description) return;
  statuses.push(status);
  ctx.db.prepare('UPDATE github_deployments SET statuses = ? WHERE release_id = ?').run(JSON.stringify(statuses), releaseId);
  queueSync(ctx, releaseId);
}

export function findDeployment(ctx: Pick<FeatureContext, 'db'>, releaseId: string): DeploymentRow | undefined {
  return ctx.db.prepare('SELECT * FROM github_deployments WHERE release_id = ?').get(releaseId) as DeploymentRow | undefined;
}

/** The preview deployments of a pull request, oldest first. */
export function previewDeployments(ctx: Pick<FeatureContext, 'db'>, projectId: string, number: number): DeploymentRow[] {
  const prefix = `pr:${projectId}:${number}:`;
  return ctx.db
    .prepare('SELECT * FROM github_deployments WHERE project_id = ? AND substr(release_id, 1, ?) = ? ORDER BY created_at, rowid')
    .all(projectId, prefix.length, prefix) as DeploymentRow[];
}

/** The last status svc wants a deployment to have. */
export function lastDeploymentStatus(row: DeploymentRow): DeploymentStatus | undefined {
  return (JSON.parse(row.statuses) as DeploymentStatus[]).at(-1);
}

/** Record the GitHub deployment id. */
export function setDeploymentId(ctx: Pick<FeatureContext, 'db'>, releaseId: string, deploymentId: number): void {
  ctx.db.prepare('UPDATE github_deployments SET deployment_id = ? WHERE release_id = ?').run(deploymentId, releaseId);
}

/** Record that the first `posted` statuses are on GitHub. */
export function setDeploymentPosted(ctx: Pick<FeatureContext, 'db'>, releaseId: string, posted: number): void {
  ctx.db.prepare('UPDATE github_deployments SET posted = MAX(posted, ?) WHERE release_id = ?').run(posted, releaseId);
}

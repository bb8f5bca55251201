// GitHub Deployments, one per release of a linked project: the statuses svc wants posted, in order,
// and how many GitHub already has. The queue posts the rest (create the deployment first).
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
}

function queueSync(ctx: Ctx, releaseId: string): void {
  enqueueJob(ctx, 'sync-deployment', { releaseId }, { lane: `deployment:${releaseId}`, dedupeKey: `deployment:${releaseId}` });
}

/** Create the deployment record of a release (idempotent). */
export function createDeployment(
  ctx: Ctx,
  input: { releaseId: string; projectId: string; fullName: string; installationId: number; sha: string; environment: string; first: DeploymentStatus },
): void {
  const inserted = ctx.db
    .prepare(
      `INSERT INTO github_deployments (release_id, project_id, full_name, installation_id, sha, environment, statuses, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    )
    .run(input.releaseId, input.projectId, input.fullName, input.installationId, input.sha, input.environment, JSON.stringify([input.first]), ctx.clock.now());
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

/** Record the GitHub deployment id. */
export function setDeploymentId(ctx: Pick<FeatureContext, 'db'>, releaseId: string, deploymentId: number): void {
  ctx.db.prepare('UPDATE github_deployments SET deployment_id = ? WHERE release_id = ?').run(deploymentId, releaseId);
}

/** Record that the first `posted` statuses are on GitHub. */
export function setDeploymentPosted(ctx: Pick<FeatureContext, 'db'>, releaseId: string, posted: number): void {
  ctx.db.prepare('UPDATE github_deployments SET posted = MAX(posted, ?) WHERE release_id = ?').run(posted, releaseId);
}

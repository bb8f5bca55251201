// Check runs as svc wants them to look (the model) and what GitHub has seen (synced version). Every
// change bumps the version and queues one sync job per check, so GitHub converges to the latest model
// in order, even across restarts and retries.
import type { FeatureContext } from '../core/feature-context.js';
import type { CheckModel } from './check-model.js';
import { enqueueJob } from './job-queue.js';

type Ctx = Pick<FeatureContext, 'db' | 'clock' | 'ids'>;

export type CheckName = 'svc/release' | 'svc/rollback' | 'svc/canary' | 'svc/restore-drill' | 'svc/preview';

export interface CheckRow {
  id: string;
  project_id: string;
  full_name: string;
  installation_id: number;
  sha: string;
  name: CheckName;
  release_id: string | null;
  model: string;
  completed: number;
  version: number;
  synced_version: number;
  check_run_id: number | null;
  created_at: number;
  updated_at: number;
}

/** Whether a model is final on GitHub (status completed). Pure. */
export function isCompleted(model: CheckModel): boolean {
  return model.state !== 'waiting' && model.state !== 'in_progress';
}

/** Queue the sync of a check (one pending job per check). */
export function queueCheckSync(ctx: Ctx, checkId: string): void {
  enqueueJob(ctx, 'sync-check', { checkId }, { lane: `check:${checkId}`, dedupeKey: `check:${checkId}` });
}

/** Create a check (synced to GitHub by the queue). */
export function createCheck(
  ctx: Ctx,
  input: { projectId: string; fullName: string; installationId: number; sha: string; name: CheckName; releaseId?: string | null; model: CheckModel },
): CheckRow {
  const id = ctx.ids('chk');
  const now = ctx.clock.now();
  ctx.db
    .prepare(
      `INSERT INTO github_checks (id, project_id, full_name, installation_id, sha, name, release_id, model, completed, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      input.projectId,
      input.fullName,
      input.installationId,
      input.sha,
      input.name,
      input.releaseId ?? null,
      JSON.stringify(input.model),
      isCompleted(input.model) ? 1 : 0,
      now,
      now,
    );
  queueCheckSync(ctx, id);
  return findCheck(ctx, id)!;
}

/** Change a check's model (return null from `change` to leave it alone). */
export function updateCheck(ctx: Ctx, id: string, change: (model: CheckModel, row: CheckRow) => CheckModel | null, releaseId?: string): boolean {
  const row = findCheck(ctx, id);
  if (!row) return false;
  const next = change(JSON.parse(row.model) as CheckModel, row);
  if (!next) return false;
  ctx.db
    .prepare('UPDATE github_checks SET model = ?, completed = ?, version = version + 1, updated_at = ?, release_id = COALESCE(?, release_id) WHERE id = ?')
    .run(JSON.stringify(next), isCompleted(next) ? 1 : 0, ctx.clock.now(), releaseId ?? null, id);
  queueCheckSync(ctx, id);
  return true;
}

/** Record what GitHub has (check run id and the version sent). */
export function markCheckSynced(ctx: Pick<FeatureContext, 'db'>, id: string, checkRunId: number, version: number): void {
  ctx.db.prepare('UPDATE github_checks SET check_run_id = ?, synced_version = MAX(synced_version, ?) WHERE id = ?').run(checkRunId, version, id);
}

export function findCheck(ctx: Pick<FeatureContext, 'db'>, id: string): CheckRow | undefined {
  return ctx.db.prepare('SELECT * FROM github_checks WHERE id = ?').get(id) as CheckRow | undefined;
}

/** The newest svc/release check of a commit that is still open (queued or in progress). */
export function findOpenReleaseCheck(ctx: Pick<FeatureContext, 'db'>, projectId: string, sha: string): CheckRow | undefined {
  return ctx.db
    .prepare(
      "SELECT * FROM github_checks WHERE project_id = ? AND sha = ? AND name = 'svc/release' AND completed = 0 ORDER BY created_at DESC, rowid DESC LIMIT 1",
    )
    .get(projectId, sha) as CheckRow | undefined;
}

/** A project's open checks of one name (optionally of one commit), oldest first. */
export function openChecks(ctx: Pick<FeatureContext, 'db'>, projectId: string, name: CheckName, sha?: string): CheckRow[] {
  const rows = ctx.db
    .prepare('SELECT * FROM github_checks WHERE project_id = ? AND name = ? AND completed = 0 ORDER BY created_at, rowid')
    .all(projectId, name) as CheckRow[];
  return sha === undefined ? rows : rows.filter((r) => r.sha === sha);
}

/** Checks of a release (optionally of one name), oldest first. */
export function checksOfRelease(ctx: Pick<FeatureContext, 'db'>, releaseId: string, name?: CheckName): CheckRow[] {
  const rows = ctx.db.prepare('SELECT * FROM github_checks WHERE release_id = ? ORDER BY created_at, rowid').all(releaseId) as CheckRow[];
  return name ? rows.filter((r) => r.name === name) : rows;
}

/** The check svc created on GitHub with this check run id. */
export function findCheckByRunId(ctx: Pick<FeatureContext, 'db'>, checkRunId: number): CheckRow | undefined {
  return ctx.db.prepare('SELECT * FROM github_checks WHERE check_run_id = ?').get(checkRunId) as CheckRow | undefined;
}

/** Checks of a project, newest first (API and console). */
export function listChecks(ctx: Pick<FeatureContext, 'db'>, projectId: string, limit = 50): CheckRow[] {
  return ctx.db.prepare('SELECT * FROM github_checks WHERE project_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?').all(projectId, limit) as CheckRow[];
}

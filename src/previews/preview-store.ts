// The previews tables: the only module that reads or writes them.
import { cachedStatement } from '../core/control-db.js';
import type { FeatureContext } from '../core/feature-context.js';
import type { PreviewDataSource } from './contract.js';

export interface PreviewRow {
  project_id: string;
  parent_project_id: string;
  number: number;
  title: string;
  author: string | null;
  head_ref: string;
  head_sha: string;
  data_source: PreviewDataSource;
  asleep: number;
  last_request_at: number | null;
  /** The newest release uploaded for the preview and its commit; the commit of the release serving. */
  candidate_release_id: string | null;
  candidate_sha: string | null;
  serving_sha: string | null;
  created_at: number;
  updated_at: number;
}

export function insertPreviewRow(ctx: FeatureContext, row: PreviewRow): void {
  cachedStatement(
    ctx.db,
    `INSERT INTO previews (project_id, parent_project_id, number, title, author, head_ref, head_sha, data_source, asleep, last_request_at, candidate_release_id, candidate_sha, serving_sha, created_at, updated_at)
     VALUES (@project_id, @parent_project_id, @number, @title, @author, @head_ref, @head_sha, @data_source, @asleep, @last_request_at, @candidate_release_id, @candidate_sha, @serving_sha, @created_at, @updated_at)`,
  ).run(row);
}

export function findPreviewRow(ctx: FeatureContext, parentProjectId: string, number: number): PreviewRow | undefined {
  return cachedStatement(ctx.db, 'SELECT * FROM previews WHERE parent_project_id = ? AND number = ?').get(parentProjectId, number) as PreviewRow | undefined;
}

export function previewRowOf(ctx: FeatureContext, projectId: string): PreviewRow | undefined {
  return cachedStatement(ctx.db, 'SELECT * FROM previews WHERE project_id = ?').get(projectId) as PreviewRow | undefined;
}

/** A project's previews, by pull request number. */
export function listPreviewRows(ctx: FeatureContext, parentProjectId: string): PreviewRow[] {
  return cachedStatement(ctx.db, 'SELECT * FROM previews WHERE parent_project_id = ? ORDER BY number').all(parentProjectId) as PreviewRow[];
}

export function listAllPreviewRows(ctx: FeatureContext): PreviewRow[] {
  return cachedStatement(ctx.db, 'SELECT * FROM previews ORDER BY parent_project_id, number').all() as PreviewRow[];
}

export function countPreviews(ctx: FeatureContext, parentProjectId: string): number {
  return (cachedStatement(ctx.db, 'SELECT COUNT(*) AS n FROM previews WHERE parent_project_id = ?').get(parentProjectId) as { n: number }).n;
}

export function updatePreviewHead(
  ctx: FeatureContext,
  projectId: string,
  head: { title: string; author: string | null; headRef: string; headSha: string },
): void {
  cachedStatement(ctx.db, 'UPDATE previews SET title = ?, author = ?, head_ref = ?, head_sha = ?, updated_at = ? WHERE project_id = ?').run(
    head.title,
    head.author,
    head.headRef,
    head.headSha,
    ctx.clock.now(),
    projectId,
  );
}

export function setPreviewAsleep(ctx: FeatureContext, projectId: string, asleep: boolean): void {
  cachedStatement(ctx.db, 'UPDATE previews SET asleep = ?, updated_at = ? WHERE project_id = ?').run(asleep ? 1 : 0, ctx.clock.now(), projectId);
}

export function recordPreviewRequests(ctx: FeatureContext, lastRequests: ReadonlyMap<string, number>): void {
  const update = cachedStatement(ctx.db, 'UPDATE previews SET last_request_at = MAX(COALESCE(last_request_at, 0), ?) WHERE project_id = ?');
  ctx.db.transaction(() => {
    for (const [projectId, at] of lastRequests) update.run(at, projectId);
  })();
}

export function readDataSource(ctx: FeatureContext, parentProjectId: string): PreviewDataSource {
  const row = cachedStatement(ctx.db, 'SELECT data_source FROM preview_settings WHERE project_id = ?').get(parentProjectId) as
    { data_source: PreviewDataSource } | undefined;
  return row?.data_source ?? 'empty';
}

export function writeDataSource(ctx: FeatureContext, parentProjectId: string, dataSource: PreviewDataSource): void {
  cachedStatement(
    ctx.db,
    `INSERT INTO preview_settings (project_id, data_source, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (project_id) DO UPDATE SET data_source = excluded.data_source, updated_at = excluded.updated_at`,
  ).run(parentProjectId, dataSource, ctx.clock.now());
}

export function recordPreviewCandidate(ctx: FeatureContext, projectId: string, releaseId: string, sha: string | null): void {
  cachedStatement(ctx.db, 'UPDATE previews SET candidate_release_id = ?, candidate_sha = ? WHERE project_id = ?').run(releaseId, sha, projectId);
}

/** The candidate became the serving release: its commit is what the preview shows now. */
export function recordPreviewServing(ctx: FeatureContext, projectId: string, releaseId: string): void {
  cachedStatement(ctx.db, 'UPDATE previews SET serving_sha = candidate_sha, asleep = 0 WHERE project_id = ? AND candidate_release_id = ?').run(
    projectId,
    releaseId,
  );
}

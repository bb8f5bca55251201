// Where a project's release files, data, snapshots and scratch space live on disk:
// `<data>/projects/<projectId>/{releases/<releaseId>/, data/<database.path>, snapshots/<releaseId>.db, tmp/}`.
// Release directories are read-only after extraction; data always lives outside them.
import { join, resolve, sep } from 'node:path';
import { SvcError } from '../core/errors.js';

/** Absolute paths of one project. */
export interface ProjectLayout {
  root: string;
  releasesDir: string;
  dataDir: string;
  snapshotsDir: string;
  tmpDir: string;
}

/** The layout of a project under the platform data directory. Pure. */
export function projectLayout(platformDataDir: string, projectId: string): ProjectLayout {
  const root = join(platformDataDir, 'projects', projectId);
  return { root, releasesDir: join(root, 'releases'), dataDir: join(root, 'data'), snapshotsDir: join(root, 'snapshots'), tmpDir: join(root, 'tmp') };
}

/** The directory of one release. */
export function releaseDirOf(layout: ProjectLayout, releaseId: string): string {
  return join(layout.releasesDir, releaseId);
}

/** The snapshot file taken while deploying a release. */
export function snapshotPathOf(layout: ProjectLayout, releaseId: string): string {
  return join(layout.snapshotsDir, `${releaseId}.db`);
}

/** `database.path` resolved inside the data directory (validated config paths cannot escape it; checked again). */
export function databasePathOf(layout: ProjectLayout, databasePath: string): string {
  const full = resolve(layout.dataDir, databasePath);
  if (!full.startsWith(layout.dataDir + sep)) throw new SvcError('SVC_VALIDATION', `database.path ${databasePath} leaves the data directory`);
  return full;
}

/** A path under a project's directory: its project, with that project's data directory, and the release whose files hold it (if any). */
export interface LocatedPath {
  projectId: string;
  dataDir: string;
  releaseId?: string;
  releaseDir?: string;
}

/**
 * Which project (and release) a path under the platform data directory belongs to: how a driver that
 * runs jobs away from this disk (swarm) finds the project of a job's database or migrations. Pure.
 */
export function locateProjectPath(platformDataDir: string, path: string): LocatedPath | null {
  const projects = join(resolve(platformDataDir), 'projects');
  const rel = resolve(path);
  if (!rel.startsWith(projects + sep)) return null;
  const [projectId, area, releaseId] = rel.slice(projects.length + 1).split(sep);
  if (!projectId || projectId === '..') return null;
  const layout = projectLayout(platformDataDir, projectId);
  if (area === 'releases' && releaseId) return { projectId, dataDir: layout.dataDir, releaseId, releaseDir: releaseDirOf(layout, releaseId) };
  return { projectId, dataDir: layout.dataDir };
}

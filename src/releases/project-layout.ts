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

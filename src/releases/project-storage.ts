import { databasePathOf, projectLayout } from './project-layout.js';
import { storageUsage, type StorageUsage } from './release-limits.js';
import type { ReleaseDeps } from './release-deps.js';
import { activeReleaseRow, listKeptSnapshots, listReleases, releaseConfig } from './release-store.js';

/**
 * A project's storage as the quota counts it: uncompressed files of retained releases (recorded at
 * upload), database + -wal + -shm as they are on disk now, and the recorded sizes of kept snapshots.
 */
export async function projectStorage(deps: Pick<ReleaseDeps, 'ctx' | 'driver'>, projectId: string): Promise<StorageUsage> {
  const { ctx } = deps;
  const releases = listReleases(ctx, projectId);
  const retained = releases.filter((r) => r.artifact_retained === 1);
  const reference = activeReleaseRow(ctx, projectId) ?? releases[0];
  const databaseBytes = reference
    ? await deps.driver.runJob({
        type: 'database-footprint',
        databasePath: databasePathOf(projectLayout(ctx.config.dataDir, projectId), releaseConfig(reference).database.path),
      })
    : 0;
  return storageUsage({
    bundleBytes: retained.reduce((sum, r) => sum + r.bundle_bytes, 0),
    databaseBytes,
    snapshotBytes: listKeptSnapshots(ctx, projectId).reduce((sum, s) => sum + s.size_bytes, 0),
    retainedArtifacts: retained.length,
  });
}

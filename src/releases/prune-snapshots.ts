import { rm } from 'node:fs/promises';
import type { ReleaseDeps } from './release-deps.js';
import { activeReleaseRow, listKeptSnapshots, markSnapshotRemoved } from './release-store.js';

/**
 * Keep only the snapshot a data-restoring rollback can still use: the active release's pre-deploy
 * snapshot (only the immediately previous release may be restored, and only from that snapshot).
 * Every other snapshot file is removed so it stops counting against the storage quota.
 */
export async function pruneSnapshots(deps: ReleaseDeps, projectId: string): Promise<void> {
  const keep = activeReleaseRow(deps.ctx, projectId)?.restore_snapshot_id ?? null;
  for (const snap of listKeptSnapshots(deps.ctx, projectId)) {
    if (snap.id === keep) continue;
    try {
      await rm(snap.path, { force: true });
      markSnapshotRemoved(deps.ctx, snap.id);
    } catch (error) {
      deps.ctx.logger.warn({ err: error, projectId, snapshot: snap.path }, 'could not remove an old snapshot');
    }
  }
}

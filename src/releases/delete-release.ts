// Release cleanup (`svc releases delete <id> --confirm="delete-release <slug> <id>"
// [--allow-rollback-loss]`): under the project lock the state machine decides (never the active
// release; the predecessor of the active one only with allowRollbackLoss, which also removes the
// active release's data-restore snapshot). Files are first moved aside into the project's tmp
// directory, the rows and the audit event are committed together, then the moved files are removed;
// a failed commit moves them back. Release metadata and audit history are kept.
import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { FeatureContext } from '../core/feature-context.js';
import type { ProjectLocks } from '../core/project-lock.js';
import { appendAudit, type AuditInput } from '../audit/append-audit.js';
import { projectLayout, releaseDirOf } from './project-layout.js';
import { keptArtifactPath, type ReleaseDriver } from '../../runner/release-driver.js';
import { transition } from './release-state.js';
import { activeReleaseRow, findSnapshot, getRelease, loadReleaseSet, markSnapshotRemoved, persistReleaseSet, type ReleaseRow } from './release-store.js';

export interface DeleteReleaseInput {
  project: { id: string; slug: string; organizationId: string };
  actor: AuditInput['actor'];
  releaseId: string;
  confirm: string;
  allowRollbackLoss: boolean;
}

export interface DeleteReleaseResult {
  release: ReleaseRow;
  freedBytes: number;
  removedSnapshot: boolean;
}

async function moveAside(from: string, to: string): Promise<boolean> {
  try {
    // Moving a directory to another parent rewrites its "..": it must be writable (release dirs are read-only).
    const info = await lstat(from);
    if (info.isDirectory()) await chmod(from, info.mode | 0o200);
    await rename(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** Remove an inactive release's artifact. The caller has checked the `rollback` permission. */
export async function deleteReleaseArtifact(
  deps: { ctx: FeatureContext; locks: ProjectLocks; driver: Pick<ReleaseDriver, 'unstage'>; lockWaitMs: number },
  input: DeleteReleaseInput,
): Promise<DeleteReleaseResult> {
  const { ctx } = deps;
  const projectId = input.project.id;
  return deps.locks.withLock(
    projectId,
    'release-cleanup',
    async () => {
      const target = getRelease(ctx, projectId, input.releaseId);
      const decision = transition(loadReleaseSet(ctx, projectId, input.project.slug), {
        type: 'delete-artifact',
        releaseId: target.id,
        confirmation: input.confirm,
        allowRollbackLoss: input.allowRollbackLoss,
        canRollback: true,
      });
      const removesSnapshot = decision.effects.some((e) => e.type === 'remove-snapshot');
      const rollbackLoss = decision.effects.some((e) => e.type === 'audit' && e.metadata?.rollbackLoss === true);
      const snapshot = removesSnapshot ? findSnapshot(ctx, activeReleaseRow(ctx, projectId)?.restore_snapshot_id ?? null) : undefined;
      const layout = projectLayout(ctx.config.dataDir, projectId);
      const trash = join(layout.tmpDir, `trash-${target.id}-${randomBytes(4).toString('hex')}`);
      await mkdir(trash, { recursive: true, mode: 0o700 });
      const movedRelease = await moveAside(releaseDirOf(layout, target.id), join(trash, 'release'));
      // The original upload a driver keeps beside the release (swarm) goes with it.
      const movedArtifact = await moveAside(keptArtifactPath(releaseDirOf(layout, target.id)), keptArtifactPath(join(trash, 'release')));
      const movedSnapshot = snapshot ? await moveAside(snapshot.path, join(trash, 'snapshot.db')) : false;
      try {
        ctx.db
          .transaction(() => {
            persistReleaseSet(ctx, projectId, decision.state);
            if (snapshot) markSnapshotRemoved(ctx, snapshot.id);
            appendAudit(ctx, {
              kind: 'release.delete',
              organizationId: input.project.organizationId,
              projectId,
              actor: input.actor,
              metadata: { releaseId: target.id, rollbackLoss, snapshotRemoved: Boolean(snapshot), bundleBytes: target.bundle_bytes },
            });
          })
          .immediate();
      } catch (error) {
        if (movedRelease) await rename(join(trash, 'release'), releaseDirOf(layout, target.id)).catch(() => undefined);
        if (movedArtifact) await rename(keptArtifactPath(join(trash, 'release')), keptArtifactPath(releaseDirOf(layout, target.id))).catch(() => undefined);
        if (movedSnapshot && snapshot) await rename(join(trash, 'snapshot.db'), snapshot.path).catch(() => undefined);
        throw error;
      }
      await deps.driver
        .unstage(trash)
        .catch((error: unknown) => ctx.logger.warn({ err: error, projectId, trash }, 'could not remove a deleted release directory; it is under tmp/'));
      return {
        release: getRelease(ctx, projectId, target.id),
        freedBytes: target.bundle_bytes + (snapshot?.size_bytes ?? 0),
        removedSnapshot: Boolean(snapshot),
      };
    },
    { waitMs: deps.lockWaitMs },
  );
}

// Make a restored database the project's database, with `restore <slug>` confirmation, under the shared
// project lock: stop the app, snapshot the current database (kept for undo), swap the restored file in,
// restart the active release — which begins a new epoch, since the restored file has no journal
// metadata — and audit recovery.restore. A failed swap puts the previous database back.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SvcError } from '../../core/errors.js';
import type { ProjectLocks } from '../../core/project-lock.js';
import { appendAudit } from '../../audit/append-audit.js';
import { recoveryRestorePhrase } from '../contract.js';
import { restoresDir, type ProjectRecoveryDeps, type RecoverySubject } from './project-recovery.js';
import { findRestore, markRestoreActivated, type RestoreRow } from './recovery-store.js';

/** Stop and start a project's app (the releases feature's app control, which keeps the ingress route in step). */
export interface RecoveryAppControl {
  stop(projectId: string): Promise<void>;
  start(projectId: string, releaseId: string): Promise<void>;
}

/** What activation needs beyond the recovery service. */
export interface ActivationDeps extends ProjectRecoveryDeps {
  locks: ProjectLocks;
  apps: RecoveryAppControl;
  /** The active release of a project, if any. */
  activeReleaseId(projectId: string): string | null;
  lockWaitMs: number;
}

/** Result of an activation. */
export interface Activation {
  row: RestoreRow;
  restartedReleaseId: string | null;
  undoSnapshot: string;
}

/** Activate a restored database (see the file comment). */
export async function activateRestore(deps: ActivationDeps, subject: RecoverySubject, restoreId: string, confirm: string): Promise<Activation> {
  const phrase = recoveryRestorePhrase(subject.project.slug);
  if (confirm !== phrase) throw new SvcError('SVC_RECOVERY_CONFIRMATION_MISMATCH', `Type exactly: ${phrase}`);
  const { ctx } = deps;
  const projectId = subject.project.id;
  return deps.locks.withLock(
    projectId,
    'recovery-restore',
    async () => {
      const row = findRestore(ctx, projectId, restoreId);
      if (!row || row.activated_at !== null) throw new SvcError('SVC_RECOVERY_RESTORE_NOT_FOUND', `No restored database ${restoreId} waiting for activation.`);
      const databasePath = deps.databasePath(projectId);
      if (databasePath === null) throw new SvcError('SVC_RECOVERY_NO_DATABASE', 'The project has no release yet.');
      const dir = restoresDir(ctx.config.dataDir, projectId);
      const restoredPath = join(dir, `${row.id}.db`);
      const undoName = `${row.id}.before.db`;
      const undoPath = join(dir, undoName);
      const releaseId = deps.activeReleaseId(projectId);
      await deps.apps.stop(projectId);
      try {
        // The app flushed its epoch on SIGTERM; the snapshot keeps the database (and its journal) for undo.
        await deps.jobs.runJob({ type: 'snapshot', databasePath, snapshotPath: undoPath });
        try {
          await deps.jobs.runJob({ type: 'restore-snapshot', snapshotPath: restoredPath, databasePath });
        } catch (error) {
          await deps.jobs.runJob({ type: 'restore-snapshot', snapshotPath: undoPath, databasePath });
          throw error;
        }
        ctx.db
          .transaction(() => {
            markRestoreActivated(ctx, row.id, ctx.clock.now());
            appendAudit(ctx, {
              kind: 'recovery.restore',
              organizationId: subject.project.organizationId,
              projectId,
              actor: subject.actor,
              metadata: {
                restoreId: row.id,
                epoch: row.epoch_dir,
                sequence: row.sequence,
                commitTime: row.commit_time,
                restartedReleaseId: releaseId,
                undoSnapshot: undoName,
              },
            });
          })
          .immediate();
        await rm(restoredPath, { force: true });
      } finally {
        // Resolves once the app is healthy and routed. A failed restart is logged, not thrown: the
        // activation (or its own error) is the answer, and the supervisor restarts an app that exits.
        if (releaseId)
          await deps.apps
            .start(projectId, releaseId)
            .catch((error: unknown) => ctx.logger.error({ err: error, projectId }, 'recovery activation: the active release did not restart healthy'));
      }
      return { row: findRestore(ctx, projectId, row.id)!, restartedReleaseId: releaseId, undoSnapshot: undoName };
    },
    { waitMs: deps.lockWaitMs },
  );
}

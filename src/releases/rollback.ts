// `svc rollback <release-id> [--restore-data --confirm="restore <project>"]` (spec 000): under the
// project lock, the state machine validates the request; the active app stops; with restore-data the
// database is restored from the active release's pre-deploy snapshot; the target must pass health;
// only then is it marked active. A failed rollback puts the previous app (and data) back.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { atomicWriteFile } from '../core/atomic-write.js';
import { SvcError } from '../core/errors.js';
import { appendAudit } from '../audit/append-audit.js';
import { setProjectRelease } from '../projects/index.js';
import type { RunningApp } from '../../runner/app-runner.js';
import { databasePathOf, projectLayout } from './project-layout.js';
import { pruneSnapshots } from './prune-snapshots.js';
import { note, quiesce, restartRelease, routeTo, startHealthy, type ReleaseDeps } from './release-deps.js';
import { transition } from './release-state.js';
import { activeReleaseRow, findSnapshot, getRelease, loadReleaseSet, markSnapshotRemoved, persistReleaseSet, releaseConfig, type ReleaseRow } from './release-store.js';
import type { TransactionSubject } from './release-transaction.js';
import { createSnapshot, restoreSnapshot } from '../../runner/jobs/snapshot.js';
import { observe, type ObservedRollback } from './release-observer.js';
import { rollbackOnNode } from './node-release.js';

export interface RollbackInput extends TransactionSubject {
  releaseId: string;
  restoreData: boolean;
  confirm?: string | undefined;
}

export interface RollbackResult {
  release: ReleaseRow;
  previousReleaseId: string | null;
  restoredData: boolean;
}

/** File that marks a data-restoring rollback in progress; boot recovery puts the saved data back. */
export function rollbackMarkerPath(dataDir: string, projectId: string): string {
  return join(projectLayout(dataDir, projectId).tmpDir, 'rollback-in-progress.json');
}

/** Roll a project back to an inactive release (code only, or with the database restored). */
export async function rollbackRelease(deps: ReleaseDeps, input: RollbackInput): Promise<RollbackResult> {
  const { ctx } = deps;
  const projectId = input.project.id;
  if (deps.placement?.isPlaced(projectId)) return rollbackOnNode(deps, input); // svc:nodes — a generation of the older release
  return deps.locks.withLock(
    projectId,
    'rollback',
    async () => {
      const target = getRelease(ctx, projectId, input.releaseId);
      const decision = transition(loadReleaseSet(ctx, projectId, input.project.slug), {
        type: 'rollback',
        releaseId: target.id,
        restoreData: input.restoreData,
        ...(input.confirm === undefined ? {} : { confirmation: input.confirm }),
        canRollback: true,
      });
      const active = activeReleaseRow(ctx, projectId);
      if (active && releaseConfig(active).database.path !== releaseConfig(target).database.path) {
        throw new SvcError('SVC_DATABASE_PATH_CHANGED', `${target.id} uses database.path "${releaseConfig(target).database.path}", the active release "${releaseConfig(active).database.path}".`);
      }
      const dbPath = databasePathOf(projectLayout(ctx.config.dataDir, projectId), releaseConfig(target).database.path);
      const restoreFrom = input.restoreData ? findSnapshot(ctx, active?.restore_snapshot_id ?? null) : undefined;
      const marker = rollbackMarkerPath(ctx.config.dataDir, projectId);
      const safetyPath = join(projectLayout(ctx.config.dataDir, projectId).tmpDir, `before-rollback-${target.id}.db`);

      const report = (phase: ObservedRollback['phase'], error?: unknown): void => {
        if (!deps.observer?.onRollback) return;
        const failure = error === undefined ? {} : { error: { code: (error as SvcError).code ?? 'SVC_INTERNAL', message: (error as Error).message } };
        observe(ctx.logger, () => deps.observer!.onRollback!({ phase, projectId, releaseId: target.id, fromReleaseId: active?.id ?? null, restoreData: input.restoreData, actor: input.actor, ...failure }));
      };
      report('start');
      note(deps, projectId, target.id, `rollback to ${target.id}${input.restoreData ? ' with data restore' : ''}`);
      await quiesce(deps, projectId);
      deps.failpoint('rollback-after-stop');
      if (restoreFrom) {
        // Keep the current data until the rollback is committed, so a failure (or crash) loses nothing.
        await createSnapshot(dbPath, safetyPath);
        await atomicWriteFile(marker, JSON.stringify({ safetyPath, databasePath: dbPath, releaseId: target.id }), { mode: 0o600, mkdirs: true });
        await restoreSnapshot(restoreFrom.path, dbPath);
        deps.failpoint('rollback-after-restore');
      }
      let app: RunningApp;
      try {
        app = await startHealthy(deps, target);
        await routeTo(deps, app);
      } catch (error) {
        if (restoreFrom) {
          await restoreSnapshot(safetyPath, dbPath);
          await rm(marker, { force: true });
          await rm(safetyPath, { force: true });
        }
        ctx.db.transaction(() => audit(deps, input, 'rollback.fail', { releaseId: target.id, restoreData: input.restoreData, code: (error as SvcError).code ?? 'SVC_INTERNAL', reason: (error as Error).message.slice(0, 500) }))();
        note(deps, projectId, target.id, `rollback failed: ${(error as Error).message}`);
        if (active) await restartRelease(deps, projectId, active.id);
        report('fail', error);
        throw error;
      }
      ctx.db
        .transaction(() => {
          persistReleaseSet(ctx, projectId, decision.state, { activated: target.id });
          if (restoreFrom) markSnapshotRemoved(ctx, restoreFrom.id);
          setProjectRelease(ctx, projectId, target.id, 'active');
          audit(deps, input, input.restoreData ? 'rollback.restore_data' : 'rollback.complete', {
            releaseId: target.id,
            fromReleaseId: active?.id ?? null,
            restoreData: input.restoreData,
            ...(restoreFrom ? { snapshotBytes: restoreFrom.size_bytes } : {}),
          });
        })
        .immediate();
      await deps.supervisor.supervise(app);
      if (restoreFrom) {
        await rm(restoreFrom.path, { force: true });
        await rm(marker, { force: true });
        await rm(safetyPath, { force: true });
      }
      await pruneSnapshots(deps, projectId);
      report('complete');
      return { release: getRelease(ctx, projectId, target.id), previousReleaseId: active?.id ?? null, restoredData: Boolean(restoreFrom) };
    },
    { waitMs: deps.settings.lockWaitMs },
  );
}

function audit(deps: ReleaseDeps, input: RollbackInput, kind: 'rollback.fail' | 'rollback.complete' | 'rollback.restore_data', metadata: Record<string, unknown>): void {
  appendAudit(deps.ctx, { kind, organizationId: input.project.organizationId, projectId: input.project.id, actor: input.actor, metadata });
}

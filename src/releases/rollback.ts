// `svc rollback <release-id> [--restore-data --confirm="restore <project>"]` (spec 000): under the
// project lock, the state machine validates the request. A code-only rollback to a release whose
// migrations the database already holds is blue-green (chooseCutover, as for a code-only deploy): the
// target starts beside the active app, which serves until the target is healthy. Otherwise (restore-data,
// a schema the target lacks, a journaled database, nothing running) the active app stops first with the
// project's requests held; with restore-data the database is restored from the active release's
// pre-deploy snapshot. Only a healthy, routed target is marked active; a failure puts the previous app
// (and data) back.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { atomicWriteFile } from '../core/atomic-write.js';
import { SvcError } from '../core/errors.js';
import { appendAudit } from '../audit/append-audit.js';
import { setProjectRelease } from '../projects/index.js';
import type { RunningApp } from '../../runner/app-runner.js';
import { databasePathOf, projectLayout, releaseDirOf, type ProjectLayout } from './project-layout.js';
import { readAppliedHistory } from '../../runner/jobs/apply-migrations.js';
import { readMigrationFiles } from '../../runner/jobs/migration-files.js';
import type { AppliedMigration } from '../../runner/jobs/migration-history.js';
import { pruneSnapshots } from './prune-snapshots.js';
import { givePriorBack, note, quiesce, routeTo, servingFacts, startHealthy, type PriorState, type ReleaseDeps } from './release-deps.js';
import { chooseCutover, unappliedMigrations } from '../../runner/jobs/choose-cutover.js';
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
      const cutover = chooseCutover({
        pendingMigrations: restoreFrom ? 0 : await unappliedMigrationsOf(projectLayout(ctx.config.dataDir, projectId), target, dbPath),
        ...servingFacts(deps, projectId, active?.id),
        restoresData: restoreFrom !== undefined,
      });
      note(deps, projectId, target.id, `rollback to ${target.id}${input.restoreData ? ' with data restore' : ''}${cutover === 'blue-green' ? ': schema compatible, the active release keeps serving until the target is healthy' : ''}`);
      const prior: PriorState = { releaseId: active?.id, stopped: false, routed: false };
      let app: RunningApp | null = null;
      let savedData = false;
      try {
        if (cutover === 'stop-first') {
          // The project's requests are held from here until the target (or the prior release again) is routed.
          prior.stopped = true;
          await quiesce(deps, projectId);
          deps.failpoint('rollback-after-stop');
          if (restoreFrom) {
            // Keep the current data until the rollback is committed, so a failure (or crash) loses nothing.
            await createSnapshot(dbPath, safetyPath);
            await atomicWriteFile(marker, JSON.stringify({ safetyPath, databasePath: dbPath, releaseId: target.id }), { mode: 0o600, mkdirs: true });
            savedData = true;
            await restoreSnapshot(restoreFrom.path, dbPath);
            deps.failpoint('rollback-after-restore');
          }
        }
        app = await startHealthy(deps, target);
        await routeTo(deps, app);
      } catch (error) {
        // Not routed (routeTo throws only before the switch), so nothing reaches the target any more.
        await app?.stop().catch((e: unknown) => ctx.logger.error({ err: e }, 'could not stop the failed rollback target'));
        if (savedData) await putDataBack(ctx, safetyPath, dbPath, marker);
        ctx.db.transaction(() => audit(deps, input, 'rollback.fail', { releaseId: target.id, restoreData: input.restoreData, code: (error as SvcError).code ?? 'SVC_INTERNAL', reason: (error as Error).message.slice(0, 500) }))();
        note(deps, projectId, target.id, `rollback failed: ${(error as Error).message}`);
        await givePriorBack(deps, projectId, prior);
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

/** A failed restore-data rollback: the data saved before it goes back (left for boot recovery when that fails). */
async function putDataBack(ctx: ReleaseDeps['ctx'], safetyPath: string, dbPath: string, marker: string): Promise<void> {
  try {
    await restoreSnapshot(safetyPath, dbPath);
    await rm(marker, { force: true });
    await rm(safetyPath, { force: true });
  } catch (error) {
    // The marker stays: the next start puts the saved data back before the app runs again.
    ctx.logger.fatal({ err: error, dbPath }, 'could not put the data back after a failed rollback');
  }
}

/**
 * The target's migrations the database lacks as they are (0: its schema is there, a code-only switch).
 * Unreadable history counts as incompatible, so the rollback stops first as it always could.
 */
async function unappliedMigrationsOf(layout: ProjectLayout, target: ReleaseRow, databasePath: string): Promise<number> {
  try {
    const files = await readMigrationFiles(join(releaseDirOf(layout, target.id), releaseConfig(target).database.migrations));
    return unappliedMigrations(files, readHistory(databasePath));
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** The applied migrations of the project database, read-only (none when it does not exist yet). */
function readHistory(databasePath: string): AppliedMigration[] {
  if (!existsSync(databasePath)) return [];
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    return readAppliedHistory(db);
  } finally {
    db.close();
  }
}

function audit(deps: ReleaseDeps, input: RollbackInput, kind: 'rollback.fail' | 'rollback.complete' | 'rollback.restore_data', metadata: Record<string, unknown>): void {
  appendAudit(deps.ctx, { kind, organizationId: input.project.organizationId, projectId: input.project.id, actor: input.actor, metadata });
}

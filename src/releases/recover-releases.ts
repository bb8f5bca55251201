// Control-plane start: finish what a crash interrupted, then make every project's active release run.
// 0. Artifacts staged by uploads that a crash interrupted are removed.
// 1. An interrupted data-restoring rollback puts the saved data back.
// 2. A candidate left by a crash is stopped, the database is restored from its snapshot (if step 6
//    ran: migrations or the candidate may have written), and it is marked failed (SVC_RELEASE_INTERRUPTED).
// Placed projects: outcomes their node reported but the pipeline had not committed are
//    committed; a candidate never handed to its node fails as interrupted; one it works on is left to it.
// 3. The supervisor re-adopts recorded apps; any active release not running is adopted or started.
import { readFile, rm } from 'node:fs/promises';
import { z } from 'zod';
import { SvcError, isSvcError } from '../core/errors.js';
import { findProject } from '../projects/index.js';
import { databasePathOf, projectLayout } from './project-layout.js';
import { note, restartRelease, routeWhenHealthy, type ReleaseDeps } from './release-deps.js';
import { listActiveReleases, listCandidates, releaseConfig, releaseRunRecord, snapshotOfRelease, type ReleaseRow } from './release-store.js';
import { markFailed, removeCandidateFiles, type TransactionSubject } from './release-commits.js';
import { rollbackMarkerPath } from './rollback.js';
import { observe } from './release-observer.js';
import { settlePlacedReleases } from './node-release-driver.js';
import { projectsWithUploadStaging, removeUploadStaging } from './upload-staging.js';

const system = { type: 'system' as const, id: 'svc-platform', name: 'release recovery' };

/** Run boot recovery; apps are started in the background (their health is not awaited). */
export async function recoverReleases(deps: ReleaseDeps): Promise<void> {
  // Candidates waiting for a runner node and placed projects are the node's to converge.
  const local = (projectId: string): boolean => !deps.placement?.isPlaced(projectId);
  const candidates = () => listCandidates(deps.ctx).filter((r) => !deps.placement?.awaitingNode(r.id));
  const staged = await projectsWithUploadStaging(deps.ctx.config.dataDir);
  const projects = new Set([...candidates().map((r) => r.project_id), ...listActiveReleases(deps.ctx).map((r) => r.project_id), ...staged].filter(local));
  for (const projectId of projects) {
    try {
      await deps.locks.withLock(projectId, 'recovery', async () => {
        await removeUploadStaging(projectLayout(deps.ctx.config.dataDir, projectId));
        await undoInterruptedRollback(deps, projectId);
        for (const candidate of candidates().filter((r) => r.project_id === projectId)) await recoverCandidate(deps, candidate);
      });
    } catch (error) {
      if (isSvcError(error, 'SVC_PROJECT_LOCKED')) deps.ctx.logger.warn({ projectId, err: error }, 'project is locked by a live process; recovery skipped');
      // A full disk must not keep the control plane from starting and serving reads: what recovery
      // would change waits for the next start (nothing it does is needed to serve the active release).
      else if (isSvcError(error, 'SVC_DISK_FULL'))
        deps.ctx.logger.error({ projectId, err: error }, 'disk full: recovery of this project skipped until the next start');
      else throw error;
    }
  }
  await settlePlacedReleases(deps); // outcomes nodes reported that the pipeline had not committed
  await deps.driver.recover();
  await ensureActiveReleases(deps);
}

async function undoInterruptedRollback(deps: ReleaseDeps, projectId: string): Promise<void> {
  const marker = rollbackMarkerPath(deps.ctx.config.dataDir, projectId);
  const text = await readFile(marker, 'utf8').catch(() => null);
  if (text === null) return;
  const saved = z.object({ safetyPath: z.string(), databasePath: z.string(), releaseId: z.string() }).safeParse(JSON.parse(text));
  if (saved.success) {
    // The rollback never committed: the active release is still the one that wrote this data.
    await deps.driver.stop(projectId);
    await deps.driver
      .runJob({ type: 'restore-snapshot', snapshotPath: saved.data.safetyPath, databasePath: saved.data.databasePath })
      .catch((error: unknown) => deps.ctx.logger.error({ err: error }, 'could not undo an interrupted rollback'));
    await rm(saved.data.safetyPath, { force: true });
  }
  await rm(marker, { force: true });
}

async function recoverCandidate(deps: ReleaseDeps, candidate: ReleaseRow): Promise<void> {
  const project = findProject(deps.ctx, candidate.project_id);
  if (!project) return;
  const record = releaseRunRecord(candidate);
  if (record) {
    const orphan = await deps.driver.adopt(record);
    await orphan?.stop();
  }
  const snapshot = snapshotOfRelease(deps.ctx, candidate.id) ?? null;
  if (snapshot) {
    await deps.driver.stop(candidate.project_id);
    const dbPath = databasePathOf(projectLayout(deps.ctx.config.dataDir, candidate.project_id), releaseConfig(candidate).database.path);
    await deps.driver.runJob({ type: 'restore-snapshot', snapshotPath: snapshot.path, databasePath: dbPath });
  }
  const step = candidate.step ?? 'recovery';
  const error = new SvcError(
    'SVC_RELEASE_INTERRUPTED',
    `The control plane stopped during step "${step}"; the previous release and its database were restored.`,
  );
  const subject: TransactionSubject = { project: { id: project.id, slug: project.slug, organizationId: project.organization_id }, actor: system };
  markFailed(deps, subject, candidate.id, { step, code: error.code, message: error.message }, snapshot);
  await removeCandidateFiles(deps, candidate.project_id, candidate.id, snapshot);
  note(deps, candidate.project_id, candidate.id, error.message);
  const observer = deps.observer; // the interrupted release's check run (GitHub) reports the failure
  if (observer?.onOutcome) observe(deps.ctx.logger, () => observer.onOutcome!({ id: candidate.id, projectId: candidate.project_id }));
}

/** Make the supervisor run exactly the active release of each project (adopting a recorded process first). */
export async function ensureActiveReleases(deps: ReleaseDeps): Promise<void> {
  const active = new Map(listActiveReleases(deps.ctx).map((r) => [r.project_id, r]));
  for (const row of active.values()) {
    if (deps.placement?.isPlaced(row.project_id)) continue; // a runner node runs it
    const status = deps.driver.status(row.project_id);
    if (status?.releaseId === row.id) continue;
    if (status) await deps.driver.stop(row.project_id);
    const record = releaseRunRecord(row);
    const adopted = record ? await deps.driver.adopt(record) : null;
    if (adopted) {
      await deps.driver.serve(adopted);
      void routeWhenHealthy(deps, adopted).catch(() => undefined);
    } else {
      void restartRelease(deps, row.project_id, row.id);
    }
  }
}

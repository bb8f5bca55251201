// The SQLite transactions that settle a release, each with its audit event: activation, failure
// (also used by boot recovery and runner nodes), a rollback's commit and its failure audit; and the
// removal of a failed candidate's files.
import { rm } from 'node:fs/promises';
import { appendAudit } from '../audit/append-audit.js';
import { setProjectRelease } from '../projects/index.js';
import type { SnapshotFile } from '../../runner/release-driver.js';
import type { ReleaseFailure, ReleaseStep } from './contract.js';
import { projectLayout, releaseDirOf, snapshotPathOf } from './project-layout.js';
import type { ReleaseDeps } from './release-deps.js';
import { transition, type ReleaseEvent, type ReleaseSetState } from './release-state.js';
import {
  activeReleaseRow,
  insertSnapshot,
  loadReleaseSet,
  markArtifactRemoved,
  markSnapshotRemoved,
  persistReleaseSet,
  type ReleaseRow,
  type SnapshotRow,
} from './release-store.js';

/** The project a transaction runs for and who started it (for audit attribution). */
export interface TransactionSubject {
  project: { id: string; slug: string; organizationId: string };
  actor: { type: 'user' | 'token' | 'github' | 'system'; id: string; name?: string | null };
  /** The upload asked for a canary rollout (`svc deploy --canary`). */
  canaryRequested?: boolean;
}

/**
 * Step 10's commit: active (prior → inactive) with its audit event in one transaction. A blue-green
 * snapshot is recorded here and only here: before, the live database was the truth and nothing may
 * restore this copy over it. Returns the snapshot row the activation recorded (or was given).
 */
export function commitActivation(
  deps: ReleaseDeps,
  subject: TransactionSubject,
  candidate: ReleaseRow,
  input: { prior: ReleaseRow | undefined; snapshot: SnapshotRow | null; liveSnapshot: SnapshotFile | null },
): SnapshotRow | null {
  const { ctx } = deps;
  const live = input.liveSnapshot;
  return ctx.db
    .transaction(() => {
      const row = live
        ? insertSnapshot(ctx, {
            projectId: candidate.project_id,
            releaseId: candidate.id,
            path: live.path,
            sizeBytes: live.sizeBytes,
            hadDatabase: live.hadDatabase,
          })
        : input.snapshot;
      const snapshot = row ? { path: row.path, sizeBytes: row.size_bytes } : null;
      const result = transition(loadReleaseSet(ctx, subject.project.id, subject.project.slug), { type: 'activate', releaseId: candidate.id, snapshot });
      persistReleaseSet(ctx, subject.project.id, result.state, { activated: candidate.id });
      setProjectRelease(ctx, subject.project.id, candidate.id, 'active');
      appendAudit(ctx, {
        kind: 'release.activate',
        organizationId: subject.project.organizationId,
        projectId: subject.project.id,
        actor: subject.actor,
        metadata: { releaseId: candidate.id, digest: candidate.digest, previousReleaseId: input.prior?.id ?? null, snapshotBytes: snapshot?.sizeBytes ?? null },
      });
      return row;
    })
    .immediate();
}

const stateMachineStep: Record<ReleaseStep, Extract<ReleaseEvent, { type: 'fail' }>['step']> = {
  verify: 'migration',
  extract: 'startup',
  'stop-active': 'startup',
  snapshot: 'backup',
  migrate: 'migration',
  start: 'startup',
  health: 'health',
  activate: 'startup',
  recovery: 'startup',
};

/** The state machine's `fail` event of a failure. */
export function failEvent(releaseId: string, failure: ReleaseFailure, snapshot: SnapshotRow | null): Extract<ReleaseEvent, { type: 'fail' }> {
  return {
    type: 'fail',
    releaseId,
    step: stateMachineStep[failure.step],
    snapshot: snapshot ? { path: snapshot.path, sizeBytes: snapshot.size_bytes } : null,
    reason: failure.message,
  };
}

/** Commit the failed state with its audit event (also used by boot recovery and runner nodes). */
export function markFailed(deps: ReleaseDeps, subject: TransactionSubject, releaseId: string, failure: ReleaseFailure, snapshot: SnapshotRow | null): void {
  const { ctx } = deps;
  const projectId = subject.project.id;
  ctx.db
    .transaction(() => {
      const result = transition(loadReleaseSet(ctx, projectId, subject.project.slug), failEvent(releaseId, failure, snapshot));
      persistReleaseSet(ctx, projectId, result.state, { failed: { releaseId, failure } });
      const active = activeReleaseRow(ctx, projectId);
      setProjectRelease(ctx, projectId, active?.id ?? null, active ? 'active' : 'failed');
      appendAudit(ctx, {
        kind: 'release.fail',
        organizationId: subject.project.organizationId,
        projectId,
        actor: subject.actor,
        metadata: { releaseId, step: failure.step, code: failure.code, reason: failure.message.slice(0, 500), activeReleaseId: active?.id ?? null },
      });
    })
    .immediate();
}

/** A failed candidate keeps its row and audit history; its files and snapshot go. */
export async function removeCandidateFiles(deps: ReleaseDeps, projectId: string, releaseId: string, snapshot: SnapshotRow | null): Promise<void> {
  const layout = projectLayout(deps.ctx.config.dataDir, projectId);
  try {
    await deps.driver.unstage(releaseDirOf(layout, releaseId));
    markArtifactRemoved(deps.ctx, releaseId);
    await rm(snapshotPathOf(layout, releaseId), { force: true });
    if (snapshot) markSnapshotRemoved(deps.ctx, snapshot.id);
  } catch (error) {
    deps.ctx.logger.warn({ err: error, projectId, releaseId }, 'could not remove the files of a failed release');
  }
}

/** A rollback's commit: the state machine's decided state, the consumed restore snapshot, the audit event. */
export function commitRollback(
  deps: ReleaseDeps,
  subject: TransactionSubject,
  input: { target: ReleaseRow; fromReleaseId: string | null; state: ReleaseSetState; restoreData: boolean; restoredFrom: SnapshotRow | undefined },
): void {
  const { ctx } = deps;
  const projectId = subject.project.id;
  ctx.db
    .transaction(() => {
      persistReleaseSet(ctx, projectId, input.state, { activated: input.target.id });
      if (input.restoredFrom) markSnapshotRemoved(ctx, input.restoredFrom.id);
      setProjectRelease(ctx, projectId, input.target.id, 'active');
      auditRollback(deps, subject, input.restoreData ? 'rollback.restore_data' : 'rollback.complete', {
        releaseId: input.target.id,
        fromReleaseId: input.fromReleaseId,
        restoreData: input.restoreData,
        ...(input.restoredFrom ? { snapshotBytes: input.restoredFrom.size_bytes } : {}),
      });
    })
    .immediate();
}

export function auditRollback(
  deps: ReleaseDeps,
  subject: TransactionSubject,
  kind: 'rollback.fail' | 'rollback.complete' | 'rollback.restore_data',
  metadata: Record<string, unknown>,
): void {
  appendAudit(deps.ctx, { kind, organizationId: subject.project.organizationId, projectId: subject.project.id, actor: subject.actor, metadata });
}

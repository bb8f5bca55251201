// The release state machine (docs/releases.md) as one pure function.
// The caller runs the returned effects and persists the returned state only when they succeed
// (e.g. a rollback is committed only after the target passed health).
import { SvcError } from '../core/errors.js';

/** Release states. */
export type ReleaseStatus = 'candidate' | 'active' | 'inactive' | 'failed';

/** A pre-deploy snapshot: the database as it was before this release's migrations ran. */
export interface SnapshotRef {
  path: string;
  /** Exact size in bytes, recorded right after the backup. */
  sizeBytes: number;
}

/** What the state machine knows about one release. */
export interface ReleaseRecord {
  id: string;
  status: ReleaseStatus;
  /** Whether the runtime files (artifact + release directory) still exist. */
  artifact: 'retained' | 'removed';
  /** The release that was active when this one was last activated (its rollback predecessor). */
  predecessorId: string | null;
  /** Snapshot taken before this release was last activated; restores the predecessor's data. */
  restoreSnapshot: SnapshotRef | null;
}

/** The release set of one project. */
export interface ReleaseSetState {
  projectSlug: string;
  releases: readonly ReleaseRecord[];
}

/** Inputs that move releases between states. */
export type ReleaseEvent =
  | { type: 'create-candidate'; releaseId: string }
  /** Step 10: health succeeded after migrations. `snapshot` is the step-6 backup (null: no database yet). */
  | { type: 'activate'; releaseId: string; snapshot: SnapshotRef | null }
  /** Backup, migration, startup or health failed; `snapshot` is the step-6 backup if it was taken. */
  | { type: 'fail'; releaseId: string; step: 'backup' | 'migration' | 'startup' | 'health'; snapshot: SnapshotRef | null; reason: string }
  /** `dataOnNode`: a runner node holds the project's data and pre-deploy snapshots (it restores; no snapshot ref here). */
  | { type: 'rollback'; releaseId: string; restoreData: boolean; confirmation?: string; canRollback: boolean; dataOnNode?: boolean }
  | { type: 'delete-artifact'; releaseId: string; confirmation: string; allowRollbackLoss: boolean; canRollback: boolean };

/** Work the caller must carry out, in order, for a transition to take effect. */
export type ReleaseEffect =
  | { type: 'stop-release'; releaseId: string }
  | { type: 'restore-snapshot'; snapshot: SnapshotRef }
  | { type: 'start-release'; releaseId: string }
  | { type: 'health-check'; releaseId: string }
  | { type: 'route-traffic'; releaseId: string }
  | { type: 'remove-artifact'; releaseId: string }
  | { type: 'remove-snapshot'; snapshot: SnapshotRef }
  | { type: 'audit'; kind: string; releaseId: string; metadata?: Record<string, unknown> };

export interface TransitionResult {
  state: ReleaseSetState;
  effects: ReleaseEffect[];
}

/** The exact phrase that confirms a data-restoring rollback. */
export function restorePhrase(projectSlug: string): string {
  return `restore ${projectSlug}`;
}

/** The exact phrase that confirms deleting a release artifact. */
export function deleteReleasePhrase(projectSlug: string, releaseId: string): string {
  return `delete-release ${projectSlug} ${releaseId}`;
}

/** The active release of a set, if any. */
export function activeRelease(state: ReleaseSetState): ReleaseRecord | undefined {
  return state.releases.find((r) => r.status === 'active');
}

/** Apply one event; throws SvcError (and changes nothing) when the transition is not allowed. */
export function transition(state: ReleaseSetState, event: ReleaseEvent): TransitionResult {
  switch (event.type) {
    case 'create-candidate':
      return createCandidate(state, event.releaseId);
    case 'activate':
      return activate(state, event);
    case 'fail':
      return fail(state, event);
    case 'rollback':
      return rollback(state, event);
    case 'delete-artifact':
      return deleteArtifact(state, event);
  }
}

function createCandidate(state: ReleaseSetState, releaseId: string): TransitionResult {
  if (state.releases.some((r) => r.id === releaseId)) invalid(`Release ${releaseId} already exists`);
  const record: ReleaseRecord = { id: releaseId, status: 'candidate', artifact: 'retained', predecessorId: null, restoreSnapshot: null };
  return { state: { ...state, releases: [...state.releases, record] }, effects: [{ type: 'audit', kind: 'release.created', releaseId }] };
}

function activate(state: ReleaseSetState, event: Extract<ReleaseEvent, { type: 'activate' }>): TransitionResult {
  const target = find(state, event.releaseId);
  if (target.status !== 'candidate') invalid(`Only a candidate can be activated; ${target.id} is ${target.status}`);
  const prior = activeRelease(state);
  const next = replace(state, (r) => {
    if (r.id === target.id) return { ...r, status: 'active', predecessorId: prior?.id ?? null, restoreSnapshot: event.snapshot };
    if (r.id === prior?.id) return { ...r, status: 'inactive' };
    return r;
  });
  return {
    state: next,
    effects: [
      { type: 'route-traffic', releaseId: target.id },
      {
        type: 'audit',
        kind: 'release.activated',
        releaseId: target.id,
        metadata: { previousReleaseId: prior?.id ?? null, snapshotBytes: event.snapshot?.sizeBytes ?? null },
      },
    ],
  };
}

function fail(state: ReleaseSetState, event: Extract<ReleaseEvent, { type: 'fail' }>): TransitionResult {
  const target = find(state, event.releaseId);
  if (target.status !== 'candidate') invalid(`Only a candidate can fail; ${target.id} is ${target.status}`);
  const prior = activeRelease(state);
  const effects: ReleaseEffect[] = [{ type: 'stop-release', releaseId: target.id }];
  // Migrations may have run (and the candidate may have written): put the pre-deploy data back first.
  if (event.snapshot) effects.push({ type: 'restore-snapshot', snapshot: event.snapshot });
  if (prior && prior.artifact === 'retained') effects.push({ type: 'start-release', releaseId: prior.id }, { type: 'route-traffic', releaseId: prior.id });
  effects.push({ type: 'audit', kind: 'release.failed', releaseId: target.id, metadata: { step: event.step, reason: event.reason } });
  return { state: replace(state, (r) => (r.id === target.id ? { ...r, status: 'failed' } : r)), effects };
}

function rollback(state: ReleaseSetState, event: Extract<ReleaseEvent, { type: 'rollback' }>): TransitionResult {
  if (!event.canRollback) throw new SvcError('SVC_ROLLBACK_PERMISSION_REQUIRED', 'Rollback needs the rollback permission');
  const target = find(state, event.releaseId);
  if (target.status !== 'inactive') invalid(`Only an inactive release can be rolled back to; ${target.id} is ${target.status}`);
  if (target.artifact !== 'retained') invalid(`The artifact of ${target.id} was removed`);
  const active = activeRelease(state);
  const effects: ReleaseEffect[] = [];
  if (active) effects.push({ type: 'stop-release', releaseId: active.id });
  if (event.restoreData) {
    if (event.confirmation !== restorePhrase(state.projectSlug)) {
      throw new SvcError('SVC_RELEASE_CONFIRMATION_MISMATCH', `Type exactly: ${restorePhrase(state.projectSlug)}`);
    }
    if (!active || active.predecessorId !== target.id) {
      throw new SvcError('SVC_RESTORE_NOT_ALLOWED', `${target.id} is not the immediately previous release`);
    }
    if (!event.dataOnNode) {
      if (!active.restoreSnapshot) throw new SvcError('SVC_RESTORE_NOT_ALLOWED', `${active.id} has no pre-deploy snapshot`);
      effects.push({ type: 'restore-snapshot', snapshot: active.restoreSnapshot });
    }
  }
  effects.push(
    { type: 'start-release', releaseId: target.id },
    { type: 'health-check', releaseId: target.id },
    { type: 'route-traffic', releaseId: target.id },
    { type: 'audit', kind: 'release.rollback', releaseId: target.id, metadata: { fromReleaseId: active?.id ?? null, restoreData: event.restoreData } },
  );
  const next = replace(state, (r) => {
    // The restored snapshot is consumed; the new activation has no data-restore snapshot of its own.
    if (r.id === target.id) return { ...r, status: 'active', predecessorId: active?.id ?? null, restoreSnapshot: null };
    if (r.id === active?.id) return { ...r, status: 'inactive', restoreSnapshot: event.restoreData ? null : r.restoreSnapshot };
    return r;
  });
  return { state: next, effects };
}

function deleteArtifact(state: ReleaseSetState, event: Extract<ReleaseEvent, { type: 'delete-artifact' }>): TransitionResult {
  if (!event.canRollback) throw new SvcError('SVC_ROLLBACK_PERMISSION_REQUIRED', 'Release cleanup needs the rollback permission');
  const target = find(state, event.releaseId);
  if (target.status === 'active') throw new SvcError('SVC_RELEASE_ACTIVE_UNDELETABLE', `${target.id} is the active release`);
  if (target.status === 'candidate') invalid(`${target.id} is still being deployed`);
  if (target.artifact === 'removed') invalid(`The artifact of ${target.id} was already removed`);
  const phrase = deleteReleasePhrase(state.projectSlug, target.id);
  if (event.confirmation !== phrase) throw new SvcError('SVC_RELEASE_CONFIRMATION_MISMATCH', `Type exactly: ${phrase}`);
  const active = activeRelease(state);
  const isPredecessor = active !== undefined && active.predecessorId === target.id;
  if (isPredecessor && !event.allowRollbackLoss) {
    throw new SvcError('SVC_ROLLBACK_LOSS_NOT_ALLOWED', `${target.id} is the rollback target of the active release`);
  }
  const effects: ReleaseEffect[] = [{ type: 'remove-artifact', releaseId: target.id }];
  if (isPredecessor && active.restoreSnapshot) effects.push({ type: 'remove-snapshot', snapshot: active.restoreSnapshot });
  effects.push({ type: 'audit', kind: 'release.artifact_deleted', releaseId: target.id, metadata: { rollbackLoss: isPredecessor } });
  const next = replace(state, (r) => {
    if (r.id === target.id) return { ...r, artifact: 'removed' };
    if (isPredecessor && r.id === active.id) return { ...r, restoreSnapshot: null };
    return r;
  });
  return { state: next, effects };
}

function find(state: ReleaseSetState, id: string): ReleaseRecord {
  const record = state.releases.find((r) => r.id === id);
  if (!record) throw new SvcError('SVC_NOT_FOUND', `Release ${id} does not exist`);
  return record;
}

function replace(state: ReleaseSetState, fn: (r: ReleaseRecord) => ReleaseRecord): ReleaseSetState {
  return { ...state, releases: state.releases.map(fn) };
}

function invalid(message: string): never {
  throw new SvcError('SVC_RELEASE_INVALID_TRANSITION', message);
}

import { describe, expect, it } from 'vitest';
import { SvcError } from '../../src/core/errors.js';
import {
  deleteReleasePhrase,
  restorePhrase,
  transition,
  type ReleaseEvent,
  type ReleaseRecord,
  type ReleaseSetState,
  type SnapshotRef,
} from '../../src/releases/release-state.js';

const snapA: SnapshotRef = { path: '/snap/a.db', sizeBytes: 8192 };
const rec = (id: string, status: ReleaseRecord['status'], extra: Partial<ReleaseRecord> = {}): ReleaseRecord => ({
  id,
  status,
  artifact: 'retained',
  predecessorId: null,
  restoreSnapshot: null,
  ...extra,
});

/** One project holding a release in every state: O → P → A (active), a candidate, a failed one, a removed one. */
const base: ReleaseSetState = {
  projectSlug: 'shop',
  releases: [
    rec('O', 'inactive'),
    rec('P', 'inactive', { predecessorId: 'O', restoreSnapshot: { path: '/snap/p.db', sizeBytes: 4096 } }),
    rec('A', 'active', { predecessorId: 'P', restoreSnapshot: snapA }),
    rec('C', 'candidate'),
    rec('F', 'failed'),
    rec('R', 'inactive', { artifact: 'removed' }),
  ],
};

type EventName = 'create' | 'activate' | 'fail' | 'rollback' | 'restore' | 'delete' | 'delete-loss';
const events: Record<EventName, (id: string) => ReleaseEvent> = {
  create: (id) => ({ type: 'create-candidate', releaseId: id }),
  activate: (id) => ({ type: 'activate', releaseId: id, snapshot: { path: '/snap/new.db', sizeBytes: 100 } }),
  fail: (id) => ({ type: 'fail', releaseId: id, step: 'health', snapshot: { path: '/snap/new.db', sizeBytes: 100 }, reason: 'timeout' }),
  rollback: (id) => ({ type: 'rollback', releaseId: id, restoreData: false, canRollback: true }),
  restore: (id) => ({ type: 'rollback', releaseId: id, restoreData: true, confirmation: restorePhrase('shop'), canRollback: true }),
  delete: (id) => ({ type: 'delete-artifact', releaseId: id, confirmation: deleteReleasePhrase('shop', id), allowRollbackLoss: false, canRollback: true }),
  'delete-loss': (id) => ({
    type: 'delete-artifact',
    releaseId: id,
    confirmation: deleteReleasePhrase('shop', id),
    allowRollbackLoss: true,
    canRollback: true,
  }),
};

const INV = 'SVC_RELEASE_INVALID_TRANSITION';
const NF = 'SVC_NOT_FOUND';
// Every release state (and a missing id) × every event: 'ok' or the error code.
const table: Record<string, Record<EventName, string>> = {
  C: { create: INV, activate: 'ok', fail: 'ok', rollback: INV, restore: INV, delete: INV, 'delete-loss': INV },
  A: {
    create: INV,
    activate: INV,
    fail: INV,
    rollback: INV,
    restore: INV,
    delete: 'SVC_RELEASE_ACTIVE_UNDELETABLE',
    'delete-loss': 'SVC_RELEASE_ACTIVE_UNDELETABLE',
  },
  P: { create: INV, activate: INV, fail: INV, rollback: 'ok', restore: 'ok', delete: 'SVC_ROLLBACK_LOSS_NOT_ALLOWED', 'delete-loss': 'ok' },
  O: { create: INV, activate: INV, fail: INV, rollback: 'ok', restore: 'SVC_RESTORE_NOT_ALLOWED', delete: 'ok', 'delete-loss': 'ok' },
  F: { create: INV, activate: INV, fail: INV, rollback: INV, restore: INV, delete: 'ok', 'delete-loss': 'ok' },
  R: { create: INV, activate: INV, fail: INV, rollback: INV, restore: INV, delete: INV, 'delete-loss': INV },
  missing: { create: 'ok', activate: NF, fail: NF, rollback: NF, restore: NF, delete: NF, 'delete-loss': NF },
};

function outcome(state: ReleaseSetState, event: ReleaseEvent): string {
  try {
    transition(state, event);
    return 'ok';
  } catch (error) {
    if (error instanceof SvcError) return error.code;
    throw error;
  }
}

function errorCode(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return error instanceof SvcError ? error.code : String(error);
  }
  return 'ok';
}

const byId = (state: ReleaseSetState) => Object.fromEntries(state.releases.map((r) => [r.id, r]));

describe('release state machine: every state × event', () => {
  for (const [id, row] of Object.entries(table)) {
    for (const [name, expected] of Object.entries(row) as [EventName, string][]) {
      it(`${id} + ${name} → ${expected}`, () => {
        const frozen = structuredClone(base);
        expect(outcome(base, events[name](id))).toBe(expected);
        expect(base).toEqual(frozen); // pure: input never mutated
      });
    }
  }
});

describe('release state machine: results', () => {
  it('activation makes the candidate active, the prior active inactive, and records the snapshot', () => {
    const { state, effects } = transition(base, events.activate('C'));
    const r = byId(state);
    expect(r.C).toMatchObject({ status: 'active', predecessorId: 'A', restoreSnapshot: { path: '/snap/new.db', sizeBytes: 100 } });
    expect(r.A!.status).toBe('inactive');
    expect(state.releases.filter((x) => x.status === 'active')).toHaveLength(1);
    expect(effects.map((e) => e.type)).toEqual(['route-traffic', 'audit']);
  });

  it('first activation has no predecessor', () => {
    const { state } = transition({ projectSlug: 's', releases: [rec('X', 'candidate')] }, { type: 'activate', releaseId: 'X', snapshot: null });
    expect(state.releases[0]).toMatchObject({ status: 'active', predecessorId: null, restoreSnapshot: null });
  });

  it('failure stops the candidate, restores the snapshot, restarts the prior release and audits', () => {
    const { state, effects } = transition(base, events.fail('C'));
    expect(byId(state).C!.status).toBe('failed');
    expect(byId(state).A!.status).toBe('active');
    expect(effects).toEqual([
      { type: 'stop-release', releaseId: 'C' },
      { type: 'restore-snapshot', snapshot: { path: '/snap/new.db', sizeBytes: 100 } },
      { type: 'start-release', releaseId: 'A' },
      { type: 'route-traffic', releaseId: 'A' },
      { type: 'audit', kind: 'release.failed', releaseId: 'C', metadata: { step: 'health', reason: 'timeout' } },
    ]);
  });

  it('a backup failure has nothing to restore', () => {
    const { effects } = transition(base, { type: 'fail', releaseId: 'C', step: 'backup', snapshot: null, reason: 'disk' });
    expect(effects.some((e) => e.type === 'restore-snapshot')).toBe(false);
  });

  it('code-only rollback leaves the database alone and keeps the active snapshot', () => {
    const { state, effects } = transition(base, events.rollback('O'));
    expect(effects.map((e) => e.type)).toEqual(['stop-release', 'start-release', 'health-check', 'route-traffic', 'audit']);
    expect(byId(state).O).toMatchObject({ status: 'active', predecessorId: 'A' });
    expect(byId(state).A).toMatchObject({ status: 'inactive', restoreSnapshot: snapA });
  });

  it('data rollback restores the active release pre-deploy snapshot and consumes it', () => {
    const { state, effects } = transition(base, events.restore('P'));
    expect(effects).toContainEqual({ type: 'restore-snapshot', snapshot: snapA });
    expect(effects.map((e) => e.type)).toEqual(['stop-release', 'restore-snapshot', 'start-release', 'health-check', 'route-traffic', 'audit']);
    expect(byId(state).P).toMatchObject({ status: 'active', predecessorId: 'A', restoreSnapshot: null });
    expect(byId(state).A!.restoreSnapshot).toBeNull();
    // After restoring, A is the predecessor but has no snapshot: a second data restore is refused.
    expect(errorCode(() => transition(state, events.restore('A')))).toBe('SVC_RESTORE_NOT_ALLOWED');
  });

  it('data rollback needs the exact phrase, a snapshot and the rollback permission', () => {
    expect(errorCode(() => transition(base, { ...events.restore('P'), confirmation: 'restore Shop' } as ReleaseEvent))).toBe(
      'SVC_RELEASE_CONFIRMATION_MISMATCH',
    );
    expect(errorCode(() => transition(base, { type: 'rollback', releaseId: 'P', restoreData: true, canRollback: true }))).toBe(
      'SVC_RELEASE_CONFIRMATION_MISMATCH',
    );
    const noSnapshot = { ...base, releases: base.releases.map((r) => (r.id === 'A' ? { ...r, restoreSnapshot: null } : r)) };
    expect(errorCode(() => transition(noSnapshot, events.restore('P')))).toBe('SVC_RESTORE_NOT_ALLOWED');
    expect(errorCode(() => transition(base, { ...events.rollback('P'), canRollback: false } as ReleaseEvent))).toBe('SVC_ROLLBACK_PERMISSION_REQUIRED');
  });

  it('deleting the predecessor with allowRollbackLoss removes its files and the matching snapshot', () => {
    const { state, effects } = transition(base, events['delete-loss']('P'));
    expect(effects).toEqual([
      { type: 'remove-artifact', releaseId: 'P' },
      { type: 'remove-snapshot', snapshot: snapA },
      { type: 'audit', kind: 'release.artifact_deleted', releaseId: 'P', metadata: { rollbackLoss: true } },
    ]);
    expect(byId(state).P).toMatchObject({ status: 'inactive', artifact: 'removed' });
    expect(byId(state).A!.restoreSnapshot).toBeNull();
  });

  it('deleting an older release keeps metadata and touches no snapshot', () => {
    const { state, effects } = transition(base, events.delete('O'));
    expect(effects.map((e) => e.type)).toEqual(['remove-artifact', 'audit']);
    expect(byId(state).O!.artifact).toBe('removed');
    expect(state.releases).toHaveLength(base.releases.length);
  });

  it('deletion needs the exact phrase and the rollback permission', () => {
    expect(errorCode(() => transition(base, { ...events.delete('O'), confirmation: deleteReleasePhrase('shop', 'P') } as ReleaseEvent))).toBe(
      'SVC_RELEASE_CONFIRMATION_MISMATCH',
    );
    expect(errorCode(() => transition(base, { ...events.delete('O'), canRollback: false } as ReleaseEvent))).toBe('SVC_ROLLBACK_PERMISSION_REQUIRED');
  });
});

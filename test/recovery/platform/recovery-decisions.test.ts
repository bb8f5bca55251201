// Pure decisions of platform recovery: which epoch an app start continues or begins, which epoch a
// restore reads, abandonment, asOf parsing, the CLI's flag rules and status lines; plus the sealed key.
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { recoveryStatusLines, restoreBody } from '../../../cli/commands/recovery.js';
import type { ControlDb } from '../../../src/core/control-db.js';
import { isSvcError } from '../../../src/core/errors.js';
import { deriveKeyring } from '../../../src/secrets/index.js';
import type { EpochInfo } from '../../../src/recovery/platform/epoch-directories.js';
import { parseAsOf, pickRestoreEpoch } from '../../../src/recovery/platform/project-recovery.js';
import { chooseEpoch, recoveryEnv } from '../../../src/recovery/platform/recovery-app-env.js';
import { loadRecoveryKey, newSealedRecoveryKey, rewrapRecoveryKeys } from '../../../src/recovery/platform/recovery-key-store.js';
import { insertProjectRecovery, recoveryMigrations } from '../../../src/recovery/platform/recovery-store.js';

const epoch = (id: string, epochId: string | null, createdAt: number | null, exportedThrough: number | null = epochId ? 5 : null): EpochInfo => ({
  id,
  directory: `/r/${id}`,
  epochId,
  createdAt,
  exportedThrough,
  headUpdatedAt: createdAt,
  verified: epochId !== null,
});
const epochs = [
  epoch('epoch-0001', 'epoch_a', 1000),
  epoch('epoch-0002', 'epoch_b', 2000),
  epoch('epoch-0003', 'epoch_c', 3000),
  epoch('epoch-0004', null, null),
];

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isSvcError(error) ? error.code : 'not an SvcError';
  }
  return undefined;
}

describe('chooseEpoch (app start)', () => {
  it('begins a new epoch for a database without recovery metadata', () => {
    expect(chooseEpoch(null, epochs)).toEqual({ kind: 'begin' });
  });
  it('continues the epoch the database carries', () => {
    expect(chooseEpoch({ epochId: 'epoch_b', committedThrough: 5, newestCommitAt: 0 }, epochs)).toEqual({ kind: 'continue', epoch: epochs[1] });
  });
  it('refuses a database whose repository is missing, unauthenticated, or ahead of it', () => {
    expect(codeOf(() => chooseEpoch({ epochId: 'epoch_zz', committedThrough: 0, newestCommitAt: 0 }, epochs))).toBe('SVC_RECOVERY_REPOSITORY_MISMATCH');
    expect(codeOf(() => chooseEpoch({ epochId: 'epoch_a', committedThrough: 5, newestCommitAt: 0 }, [{ ...epochs[0]!, verified: false }]))).toBe(
      'SVC_RECOVERY_TAMPERED',
    );
    expect(codeOf(() => chooseEpoch({ epochId: 'epoch_a', committedThrough: 4, newestCommitAt: 0 }, epochs))).toBe('SVC_RECOVERY_REPOSITORY_MISMATCH');
  });
  it('passes the directory and the base64 key', () => {
    const key = randomBytes(32);
    expect(recoveryEnv('/r/epoch-0001', key)).toEqual({ SVC_RECOVERY_DIR: '/r/epoch-0001', SVC_RECOVERY_KEY: key.toString('base64') });
  });
});

describe('pickRestoreEpoch', () => {
  const where = { current: 'epoch-0002', abandoned: new Set(['epoch-0003']) };
  it('defaults to the current epoch', () => {
    expect(pickRestoreEpoch(epochs, {}, where).id).toBe('epoch-0002');
    expect(pickRestoreEpoch(epochs, {}, { current: null, abandoned: new Set() }).id).toBe('epoch-0003');
  });
  it('matches an explicit platform or recovery epoch id, abandoned ones included', () => {
    expect(pickRestoreEpoch(epochs, { epochId: 'epoch-0003' }, where).id).toBe('epoch-0003');
    expect(pickRestoreEpoch(epochs, { epochId: 'epoch_a' }, where).id).toBe('epoch-0001');
    expect(codeOf(() => pickRestoreEpoch(epochs, { epochId: 'epoch-0004' }, where))).toBe('SVC_RECOVERY_EPOCH_NOT_FOUND');
  });
  it('for a time picks the newest non-abandoned epoch begun at or before it (the oldest if none, which then fails as before-base)', () => {
    expect(pickRestoreEpoch(epochs, { asOf: 1500 }, where).id).toBe('epoch-0001');
    expect(pickRestoreEpoch(epochs, { asOf: 3500 }, where).id).toBe('epoch-0002');
    expect(pickRestoreEpoch(epochs, { asOf: 3500 }, { current: null, abandoned: new Set() }).id).toBe('epoch-0003');
    expect(pickRestoreEpoch(epochs, { asOf: 10 }, where).id).toBe('epoch-0001');
  });
  it('fails without any begun epoch', () => {
    expect(codeOf(() => pickRestoreEpoch([epoch('epoch-0001', null, null)], {}, { current: null, abandoned: new Set() }))).toBe('SVC_RECOVERY_EPOCH_NOT_FOUND');
  });
});

describe('parseAsOf', () => {
  it('takes milliseconds (number or digits) and ISO 8601 text', () => {
    expect(parseAsOf(1234)).toBe(1234);
    expect(parseAsOf('1234')).toBe(1234);
    expect(parseAsOf('2026-11-21T10:15:00Z')).toBe(Date.parse('2026-11-21T10:15:00Z'));
    expect(codeOf(() => parseAsOf('yesterday'))).toBe('SVC_VALIDATION');
  });
});

describe('svc recovery flags and output', () => {
  it('needs exactly one of --sequence and --as-of; --sequence is a whole number', () => {
    expect(restoreBody({ sequence: '12', epoch: 'epoch-0002' })).toEqual({ throughSequence: 12, epochId: 'epoch-0002' });
    expect(restoreBody({ asOf: '2026-11-21T10:15:00Z' })).toEqual({ asOf: '2026-11-21T10:15:00Z' });
    expect(codeOf(() => restoreBody({}))).toBe('SVC_USAGE');
    expect(codeOf(() => restoreBody({ sequence: '1', asOf: '5' }))).toBe('SVC_USAGE');
    expect(codeOf(() => restoreBody({ sequence: '-1' }))).toBe('SVC_USAGE');
  });
  it('prints status lines', () => {
    expect(
      recoveryStatusLines({
        enabled: false,
        enabledAt: null,
        effective: 'next-release-or-restart',
        attached: false,
        currentEpoch: null,
        committedThrough: null,
        exportedThrough: null,
        newestCommitAt: null,
        epochs: [],
        restores: [],
      }),
    ).toEqual(['Point-in-time recovery is off (svc recovery enable).']);
    const lines = recoveryStatusLines({
      enabled: true,
      enabledAt: '2026-11-21T10:00:00.000Z',
      effective: 'next-release-or-restart',
      attached: true,
      currentEpoch: 'epoch-0002',
      committedThrough: 7,
      exportedThrough: 6,
      newestCommitAt: '2026-11-21T10:05:00.000Z',
      epochs: [
        {
          id: 'epoch-0002',
          epochId: 'epoch_b',
          createdAt: '2026-11-21T10:00:00.000Z',
          exportedThrough: 6,
          headUpdatedAt: null,
          current: true,
          abandoned: false,
        },
      ],
      restores: [],
    });
    expect(lines[1]).toBe('Committed through 7, exported through 6, newest commit 2026-11-21T10:05:00.000Z.');
    expect(lines.join('\n')).toMatch(/epoch-0002 +epoch_b .* current/);
  });
});

describe('recovery key store', () => {
  it('seals a 32-byte key per project, bound to it, and re-wraps it on master-key rotation', () => {
    const db = new Database(':memory:') as unknown as ControlDb;
    db.exec('CREATE TABLE projects (id TEXT PRIMARY KEY)');
    db.exec("INSERT INTO projects (id) VALUES ('prj_a'), ('prj_b')");
    for (const m of recoveryMigrations) m.up(db);
    const from = deriveKeyring(randomBytes(32), 'file');
    const to = deriveKeyring(randomBytes(32), 'file');
    insertProjectRecovery({ db }, 'prj_a', newSealedRecoveryKey(from, 'prj_a'), 1);
    insertProjectRecovery({ db }, 'prj_b', newSealedRecoveryKey(from, 'prj_a'), 1); // sealed for another project
    const key = loadRecoveryKey({ db }, from, 'prj_a');
    expect(key).toHaveLength(32);
    expect(codeOf(() => loadRecoveryKey({ db }, from, 'prj_b'))).toBe('SVC_SECRET_DECRYPT_FAILED');
    expect(codeOf(() => loadRecoveryKey({ db }, from, 'prj_none'))).toBe('SVC_RECOVERY_NOT_ENABLED');
    db.prepare("DELETE FROM project_recovery WHERE project_id = 'prj_b'").run();
    expect(rewrapRecoveryKeys(db, from, to)).toBe(1);
    expect(loadRecoveryKey({ db }, to, 'prj_a').equals(key)).toBe(true);
    expect(codeOf(() => loadRecoveryKey({ db }, from, 'prj_a'))).toBe('SVC_SECRET_DECRYPT_FAILED');
  });
});

// The attempt record's decisions (pure) and its file handling (real files in a temp dir).
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ATTEMPT_RETENTION_MS,
  attemptRecordPath,
  attemptVerdict,
  deleteAttemptRecord,
  isAmbiguousUploadFailure,
  newAttemptRecord,
  pruneAttemptRecords,
  readAttemptRecord,
  writeAttemptRecord,
} from '../../cli/attempt-record.js';
import { errorFromResponse } from '../../cli/http-request.js';
import { SvcError } from '../../src/core/errors.js';
import { tempDir } from '../cli/run-cli.js';

const D1 = 'a'.repeat(64);
const D2 = 'b'.repeat(64);
const target = { server: 'http://127.0.0.1:7070', projectId: 'prj_1', digest: D1 };
const T0 = Date.parse('2030-01-01T00:00:00Z');

describe('attemptVerdict / newAttemptRecord', () => {
  const record = newAttemptRecord(target, 'svc-cli-key-1', T0);

  it('reuses a record of the same project and digest within 24 hours, even on another server address', () => {
    expect(record.expiresAt - T0).toBe(ATTEMPT_RETENTION_MS);
    expect(attemptVerdict(record, target, T0 + 1000)).toBe('reuse');
    expect(attemptVerdict(record, { ...target, server: 'http://127.0.0.1:9999' }, T0)).toBe('reuse');
  });

  it('does not reuse a missing, expired or other-target record', () => {
    expect(attemptVerdict(undefined, target, T0)).toBe('none');
    expect(attemptVerdict(record, target, T0 + ATTEMPT_RETENTION_MS)).toBe('expired');
    expect(attemptVerdict(record, { ...target, projectId: 'prj_2' }, T0)).toBe('other-target');
    expect(attemptVerdict(record, { ...target, digest: D2 }, T0)).toBe('other-target');
  });
});

describe('isAmbiguousUploadFailure', () => {
  it.each([
    ['connection failed', new SvcError('SVC_NETWORK'), true],
    ['timeout', new SvcError('SVC_TIMEOUT'), true],
    ['cut or unreadable body', new SvcError('SVC_BAD_RESPONSE'), true],
    ['500 internal', errorFromResponse(500, JSON.stringify({ error: { code: 'SVC_INTERNAL', message: 'x' } })), true],
    ['502 from a proxy without an svc body', errorFromResponse(502, '<html>bad gateway</html>'), true],
    ['unknown 5xx code', errorFromResponse(500, JSON.stringify({ error: { code: 'SVC_FROM_THE_FUTURE', message: 'x' } })), true],
    ['release failed its health gate (502)', errorFromResponse(502, JSON.stringify({ error: { code: 'SVC_HEALTH_CHECK_FAILED', message: 'x' } })), false],
    ['quota (507)', errorFromResponse(507, JSON.stringify({ error: { code: 'SVC_STORAGE_QUOTA_EXCEEDED', message: 'x' } })), false],
    ['key reused (422)', errorFromResponse(422, JSON.stringify({ error: { code: 'SVC_IDEMPOTENCY_KEY_REUSED', message: 'x' } })), false],
    ['project locked (409)', errorFromResponse(409, JSON.stringify({ error: { code: 'SVC_PROJECT_LOCKED', message: 'x' } })), false],
    ['unauthenticated (401)', errorFromResponse(401, ''), false],
  ])('%s', (_label, error, expected) => {
    expect(isAmbiguousUploadFailure(error)).toBe(expected);
  });
});

describe('attempt record files', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir('svc-attempt-')));
  afterEach(() => cleanup());

  it('writes the record privately (0600 in 0700) and reads it back', async () => {
    const record = newAttemptRecord(target, 'svc-cli-key-1', T0);
    const path = await writeAttemptRecord(dir, record);
    expect(path).toBe(attemptRecordPath(dir, D1));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, '.svc', 'attempts'))).mode & 0o777).toBe(0o700);
    expect(await readAttemptRecord(dir, D1)).toEqual(record);
    await deleteAttemptRecord(dir, D1);
    expect(await readAttemptRecord(dir, D1)).toBeUndefined();
  });

  it('drops corrupt records and prunes expired ones, keeping live ones', async () => {
    await writeAttemptRecord(dir, newAttemptRecord(target, 'svc-cli-old-key', T0 - ATTEMPT_RETENTION_MS - 1));
    await writeAttemptRecord(dir, newAttemptRecord({ ...target, digest: D2 }, 'svc-cli-new-key', T0));
    const corrupt = 'c'.repeat(64);
    await mkdir(join(dir, '.svc', 'attempts'), { recursive: true });
    await writeFile(join(dir, '.svc', 'attempts', `${corrupt}.json`), '{not json');
    await writeFile(join(dir, '.svc', 'attempts', 'README'), 'left alone');
    expect(await pruneAttemptRecords(dir, T0)).toBe(2);
    expect((await readdir(join(dir, '.svc', 'attempts'))).sort()).toEqual([`${D2}.json`, 'README'].sort());
  });

  it('refuses a path for something that is not a digest', () => {
    expect(() => attemptRecordPath(dir, '../../etc/passwd')).toThrow(SvcError);
  });
});

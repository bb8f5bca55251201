// Which failures count as a full disk, and what the HTTP layer answers for one. Pure.
import { describe, expect, it } from 'vitest';
import { ioFailure, isDiskFull } from '../../src/core/disk-full.js';
import { SvcError } from '../../src/core/errors.js';
import { toErrorResponse } from '../../src/core/http/error-response.js';

const errno = (code: string) => Object.assign(new Error(`${code}: failed`), { code });

describe('isDiskFull', () => {
  it.each([
    ['ENOSPC', true],
    ['EDQUOT', true],
    ['SQLITE_FULL', true],
    ['SQLITE_IOERR_SHMSIZE', true],
    ['EACCES', false],
    ['SQLITE_BUSY', false],
  ])('%s → %s', (code, full) => {
    expect(isDiskFull(errno(code))).toBe(full);
  });

  it('is false for values without a code', () => {
    expect(isDiskFull(new Error('x'))).toBe(false);
    expect(isDiskFull(null)).toBe(false);
    expect(isDiskFull('ENOSPC')).toBe(false);
  });
});

describe('ioFailure', () => {
  it('maps a full disk to SVC_DISK_FULL, other I/O to SVC_IO, and keeps SvcErrors', () => {
    expect(ioFailure(errno('ENOSPC'), 'writing x')).toMatchObject({ code: 'SVC_DISK_FULL', status: 507, message: 'No space left writing x' });
    expect(ioFailure(errno('EIO'), 'writing x')).toMatchObject({ code: 'SVC_IO' });
    const typed = new SvcError('SVC_CONFLICT');
    expect(ioFailure(typed, 'writing x')).toBe(typed);
  });
});

describe('toErrorResponse', () => {
  it('answers 507 SVC_DISK_FULL (not a redacted 500) for an unmapped full-disk failure, logged as a server fault', () => {
    expect(toErrorResponse(errno('SQLITE_FULL'))).toMatchObject({ status: 507, body: { error: { code: 'SVC_DISK_FULL' } }, internal: true });
    expect(toErrorResponse(errno('ENOSPC'))).toMatchObject({ status: 507, body: { error: { code: 'SVC_DISK_FULL' } }, internal: true });
    expect(toErrorResponse(errno('EIO'))).toMatchObject({ status: 500, body: { error: { code: 'SVC_INTERNAL' } } });
  });
});

// One answer to "is this failure a full disk?" for every durable write path, so a full disk is
// reported as SVC_DISK_FULL (507, free space and retry) rather than as an internal error.
import { SvcError } from './errors.js';

const errnoCodes = new Set(['ENOSPC', 'EDQUOT']);
// SQLite's result codes when a write (or the WAL index of a fresh open) finds no space.
const sqliteCodes = new Set(['SQLITE_FULL', 'SQLITE_IOERR_SHMSIZE']);

/** Whether a thrown value means the filesystem (or quota) has no space left. Pure. */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (errnoCodes.has(code) || sqliteCodes.has(code));
}

/** An I/O failure as an SvcError: SVC_DISK_FULL for a full disk, SVC_IO otherwise (SvcErrors pass through). Pure. */
export function ioFailure(error: unknown, what: string): SvcError {
  if (error instanceof SvcError) return error;
  if (isDiskFull(error)) return new SvcError('SVC_DISK_FULL', `No space left ${what}`, { cause: error });
  return new SvcError('SVC_IO', `Failed ${what}: ${(error as Error).message}`, { cause: error });
}

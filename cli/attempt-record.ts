// The private local attempt record of an upload (docs/deploy.md): `.svc/attempts/<digest>.json`
// (file 0600 in a 0700 directory) holds the idempotency key of an upload whose outcome is unknown,
// so the next identical `svc deploy` within 24 hours reuses the key and never creates a second release.
import { chmod, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { atomicWriteFile } from '../src/core/atomic-write.js';
import { SvcError } from '../src/core/errors.js';
import { readOptionalFile } from './read-optional-file.js';

/** How long a record stays usable (spec: retained 24 hours). */
export const ATTEMPT_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Directory of the records inside an app directory. */
export const ATTEMPT_DIR = join('.svc', 'attempts');

const DIGEST = /^[0-9a-f]{64}$/;

const attemptRecordSchema = z.object({
  version: z.literal(1),
  /** Origin the upload went to (informational). */
  server: z.string().min(1),
  projectId: z.string().min(1),
  digest: z.string().regex(DIGEST),
  idempotencyKey: z.string().min(8).max(200),
  createdAt: z.string(),
  /** Milliseconds since the epoch after which the record is ignored and pruned. */
  expiresAt: z.number().int(),
});

/** One upload attempt: which artifact went to which project under which idempotency key. */
export type AttemptRecord = z.infer<typeof attemptRecordSchema>;

/** What the next upload of `digest` to `projectId` on `server` is. */
export interface AttemptTarget {
  server: string;
  projectId: string;
  digest: string;
}

/** Whether a stored record may be reused for `target` at `now` (pure). */
export function attemptVerdict(record: AttemptRecord | undefined, target: AttemptTarget, now: number): 'reuse' | 'none' | 'expired' | 'other-target' {
  if (!record) return 'none';
  if (record.expiresAt <= now) return 'expired';
  // Project ids are unique across servers, so project + digest identify "the same command" even when
  // the server's address changed (e.g. a restarted development server on another port).
  if (record.digest !== target.digest || record.projectId !== target.projectId) return 'other-target';
  return 'reuse';
}

/** A new record for `target` with `key`, valid for 24 hours from `now` (pure). */
export function newAttemptRecord(target: AttemptTarget, key: string, now: number): AttemptRecord {
  return { version: 1, ...target, idempotencyKey: key, createdAt: new Date(now).toISOString(), expiresAt: now + ATTEMPT_RETENTION_MS };
}

/**
 * Whether a failed upload may have created a release anyway: no answer (network, timeout, cut or
 * unreadable response) or a 5xx that is not a release outcome. Definite answers (4xx, or a release
 * that failed its transaction) mean the record can go (pure).
 */
export function isAmbiguousUploadFailure(error: SvcError): boolean {
  if (error.code === 'SVC_NETWORK' || error.code === 'SVC_TIMEOUT' || error.code === 'SVC_BAD_RESPONSE') return true;
  if (RELEASE_OUTCOME_CODES.has(error.code)) return false;
  const status = typeof error.details?.status === 'number' ? error.details.status : error.status;
  return status >= 500;
}

// 5xx codes with which the server reports a finished release transaction (the candidate is failed).
const RELEASE_OUTCOME_CODES = new Set<string>([
  'SVC_RELEASE_FAILED',
  'SVC_HEALTH_CHECK_FAILED',
  'SVC_APP_START_FAILED',
  'SVC_MIGRATION_FAILED',
  'SVC_STORAGE_QUOTA_EXCEEDED',
  'SVC_DISK_FULL',
]);

/** Path of the record of `digest` in `appDir`. */
export function attemptRecordPath(appDir: string, digest: string): string {
  if (!DIGEST.test(digest)) throw new SvcError('SVC_BAD_REQUEST', 'An artifact digest is 64 lowercase hex characters');
  return join(appDir, ATTEMPT_DIR, `${digest}.json`);
}

/** Read the record of `digest`; undefined when missing or unreadable (a corrupt record is removed). */
export async function readAttemptRecord(appDir: string, digest: string): Promise<AttemptRecord | undefined> {
  const path = attemptRecordPath(appDir, digest);
  const text = await readOptionalFile(path);
  if (text === undefined) return undefined;
  try {
    const parsed = attemptRecordSchema.safeParse(JSON.parse(text));
    if (parsed.success && parsed.data.digest === digest) return parsed.data;
  } catch {
    // fall through: not JSON
  }
  await rm(path, { force: true });
  return undefined;
}

/** Atomically write a record (file 0600 in a 0700 directory) before its upload starts. */
export async function writeAttemptRecord(appDir: string, record: AttemptRecord): Promise<string> {
  const dir = join(appDir, ATTEMPT_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode is masked by the umask and ignored for an existing directory: set it exactly.
  await chmod(dir, 0o700);
  const path = attemptRecordPath(appDir, record.digest);
  await atomicWriteFile(path, `${JSON.stringify(attemptRecordSchema.parse(record), null, 2)}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
  return path;
}

/** Remove the record of `digest` (after a definite outcome). */
export async function deleteAttemptRecord(appDir: string, digest: string): Promise<void> {
  await rm(attemptRecordPath(appDir, digest), { force: true });
}

/** Remove expired or unreadable records; returns how many were removed. */
export async function pruneAttemptRecords(appDir: string, now: number): Promise<number> {
  let names: string[];
  try {
    names = await readdir(join(appDir, ATTEMPT_DIR));
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names.slice(0, 10_000)) {
    const match = /^([0-9a-f]{64})\.json$/.exec(name);
    if (!match) continue;
    const record = await readAttemptRecord(appDir, match[1] as string);
    if (!record || record.expiresAt <= now) {
      await rm(join(appDir, ATTEMPT_DIR, name), { force: true });
      removed++;
    }
  }
  return removed;
}

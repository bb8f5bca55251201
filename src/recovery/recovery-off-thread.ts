// Recovery work of the control plane in a worker thread: its restores (the restore route, the epoch
// rotation of a deploy and its drill) replay, prove and integrity-check a database synchronously, and the
// rotation fingerprints two databases with a full scan; on a large database each held the event loop
// for a second or more (restore 1.1–1.7 s, fingerprint 0.8 s for 21–39 MiB). The worker takes that off it.
import { runWorkerJob, siblingModule } from '../core/module-worker.js';
import type { RestorePointInTimeOptions } from './recovery-options.js';
import type { RestoreResult } from './restore-point-in-time.js';

/** What one worker does. */
export type RecoveryJob = { kind: 'restore'; options: RestorePointInTimeOptions } | { kind: 'fingerprint'; path: string };

function runJob(job: RecoveryJob): Promise<unknown> {
  return runWorkerJob(siblingModule(import.meta.url, 'recovery-worker'), job, `recovery (${job.kind})`);
}

/** restorePointInTime in a worker: same result and error codes; a worker that dies without answering is SVC_INTERNAL. */
export function restorePointInTimeOffThread(options: RestorePointInTimeOptions): Promise<RestoreResult> {
  return runJob({ kind: 'restore', options }) as Promise<RestoreResult>;
}

/** databaseFingerprint in a worker. */
export function databaseFingerprintOffThread(path: string): Promise<string> {
  return runJob({ kind: 'fingerprint', path }) as Promise<string>;
}

// Recovery work of the control plane in a worker thread: its restores (the restore route, the epoch
// rotation of a deploy and its drill) replay, prove and integrity-check a database synchronously, and the
// rotation fingerprints two databases with a full scan; on a large database each held the event loop
// for a second or more (restore 1.1–1.7 s, fingerprint 0.8 s for 21–39 MiB). The worker takes that off it.
import { SvcError } from '../core/errors.js';
import { fromWireError, siblingModule, startModuleWorker, type WireError } from '../core/module-worker.js';
import type { RestorePointInTimeOptions } from './recovery-options.js';
import type { RestoreResult } from './restore-point-in-time.js';

/** What one worker does. */
export type RecoveryJob = { kind: 'restore'; options: RestorePointInTimeOptions } | { kind: 'fingerprint'; path: string };

type Answer = { ok: true; result: unknown } | { ok: false; error: WireError };

function runJob(job: RecoveryJob): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = startModuleWorker(siblingModule(import.meta.url, 'recovery-worker'), { workerData: job });
    let answered = false;
    worker.once('message', (answer: Answer) => {
      answered = true;
      if (answer.ok) resolve(answer.result);
      else reject(fromWireError(answer.error));
    });
    const lost = (reason: string): void => {
      if (!answered) reject(new SvcError('SVC_INTERNAL', `The recovery worker stopped without an answer (${reason}); its ${job.kind} did not complete.`));
      answered = true;
    };
    worker.once('error', (error) => lost(error.message));
    worker.once('exit', (code) => lost(`exit ${code}`));
  });
}

/** restorePointInTime in a worker: same result and error codes; a worker that dies without answering is SVC_INTERNAL. */
export function restorePointInTimeOffThread(options: RestorePointInTimeOptions): Promise<RestoreResult> {
  return runJob({ kind: 'restore', options }) as Promise<RestoreResult>;
}

/** databaseFingerprint in a worker. */
export function databaseFingerprintOffThread(path: string): Promise<string> {
  return runJob({ kind: 'fingerprint', path }) as Promise<string>;
}

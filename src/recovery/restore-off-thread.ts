// restorePointInTime in a worker thread: the control plane's restores (the restore route, the epoch
// rotation of a deploy and its drill) replay, prove and integrity-check a database synchronously, which
// on a large database held the event loop for seconds (1.7 s for 21 MiB); the worker takes that off it.
import { SvcError } from '../core/errors.js';
import { fromWireError, siblingModule, startModuleWorker, type WireError } from '../core/module-worker.js';
import type { RestorePointInTimeOptions } from './recovery-options.js';
import type { RestoreResult } from './restore-point-in-time.js';

type Answer = { ok: true; result: RestoreResult } | { ok: false; error: WireError };

/** Same result and error codes as restorePointInTime; a worker that dies without answering is SVC_INTERNAL. */
export function restorePointInTimeOffThread(options: RestorePointInTimeOptions): Promise<RestoreResult> {
  return new Promise((resolve, reject) => {
    const worker = startModuleWorker(siblingModule(import.meta.url, 'restore-worker'), { workerData: options });
    let answered = false;
    worker.once('message', (answer: Answer) => {
      answered = true;
      if (answer.ok) resolve(answer.result);
      else reject(fromWireError(answer.error));
    });
    const lost = (reason: string): void => {
      if (!answered) reject(new SvcError('SVC_INTERNAL', `The restore worker stopped without an answer (${reason}); the restore did not complete.`));
      answered = true;
    };
    worker.once('error', (error) => lost(error.message));
    worker.once('exit', (code) => lost(`exit ${code}`));
  });
}

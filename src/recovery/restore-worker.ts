// The worker thread of restorePointInTimeOffThread: one restore (authenticate, replay, prove, integrity
// check — synchronous SQLite work of seconds on a large database) and one answer.
import { parentPort, workerData } from 'node:worker_threads';
import { toWireError } from '../core/module-worker.js';
import type { RestorePointInTimeOptions } from './recovery-options.js';
import { restorePointInTime } from './restore-point-in-time.js';

const options = workerData as RestorePointInTimeOptions;
// A key crosses the thread boundary as a plain Uint8Array; the options check expects the same bytes.
restorePointInTime({ ...options, encryptionKey: Buffer.from(options.encryptionKey) })
  .then((result) => parentPort!.postMessage({ ok: true, result }))
  .catch((error: unknown) => parentPort!.postMessage({ ok: false, error: toWireError(error) }));

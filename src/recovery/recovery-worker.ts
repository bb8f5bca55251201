// The worker thread of recovery-off-thread.ts: one job — a restore (authenticate, replay, prove,
// integrity check) or a database fingerprint (a full scan) — synchronous SQLite work of seconds on a large
// database, and one answer.
import { answerFromWorker } from '../core/module-worker.js';
import { databaseFingerprint } from './database-fingerprint.js';
import type { RecoveryJob } from './recovery-off-thread.js';
import { restorePointInTime } from './restore-point-in-time.js';

async function run(job: RecoveryJob): Promise<unknown> {
  // A key crosses the thread boundary as a plain Uint8Array; the options check expects the same bytes.
  if (job.kind === 'restore') return restorePointInTime({ ...job.options, encryptionKey: Buffer.from(job.options.encryptionKey) });
  return databaseFingerprint(job.path);
}

answerFromWorker(run);

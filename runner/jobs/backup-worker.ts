// The worker thread of a snapshot: SQLite's online backup of one database into one file. Its steps
// and its final commit run here, not on the control plane's event loop.
import Database from 'better-sqlite3';
import { isDiskFull } from '../../src/core/disk-full.js';
import { SvcError } from '../../src/core/errors.js';
import { answerFromWorker } from '../../src/core/module-worker.js';

export interface BackupJob {
  source: string;
  destination: string;
}

// SQLite's own error codes do not cross the thread boundary: the two outcomes callers tell apart are
// mapped here, where the error is still whole.
async function backup(job: BackupJob): Promise<null> {
  try {
    const source = new Database(job.source, { fileMustExist: true });
    try {
      await source.backup(job.destination);
    } finally {
      source.close();
    }
    return null;
  } catch (error) {
    if (isDiskFull(error)) throw new SvcError('SVC_DISK_FULL', `No space left for the snapshot of ${job.source}`, { cause: error });
    throw new SvcError('SVC_SNAPSHOT_FAILED', `Backup of ${job.source} failed: ${(error as Error).message}`, { cause: error });
  }
}

answerFromWorker(backup);

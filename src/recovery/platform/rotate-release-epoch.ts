// Epoch rotation inside the release transaction (a migration starts a new epoch), run after the app was stopped (step 5)
// and the snapshot taken (step 6), before migrations (step 7):
//   flush and retain the old epoch → restore its final sequence into a new stopped database → check it
//   equals the stopped database → put it in place (no journal metadata, no guard triggers) → migrate.
// The new epoch begins inside the candidate app when it attaches (after its runtime created its tables),
// and `verifyStartedEpoch` then restores that epoch into a scratch file (the drill) before activation.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SvcError } from '../../core/errors.js';
import { openPointInTimeRecovery, type RecoveryStatus } from '../open-point-in-time-recovery.js';
import type { RecoveryDatabase } from '../recovery-options.js';
import { databaseFingerprintOffThread, restorePointInTimeOffThread } from '../recovery-off-thread.js';
import { readEpochInfo, type EpochInfo } from './epoch-directories.js';
import { readDatabaseEpoch } from './database-epoch.js';
import type { RecoveryJobs } from './project-recovery.js';

/** Where a rotation works: the stopped database, its epoch repository, the key, a scratch directory. */
export interface RotationInput {
  databasePath: string;
  epoch: EpochInfo;
  key: Uint8Array;
  scratchDir: string;
  /** The release driver's jobs: the verified restore goes in place through its `restore-snapshot`. */
  jobs: RecoveryJobs;
}

/** What a rotation did. */
export interface RotationResult {
  fromEpoch: string;
  fromEpochId: string;
  finalSequence: number;
}

/**
 * Attach recovery to the stopped database from the control plane (this verifies the seal), export
 * whatever the app had not exported yet, and detach. The database is not written.
 */
export async function flushStoppedEpoch(databasePath: string, directory: string, key: Uint8Array): Promise<RecoveryStatus> {
  const sqlite = new Database(databasePath, { fileMustExist: true });
  try {
    const database: RecoveryDatabase = { sqlite, onBeforeCommit: () => () => undefined };
    const recovery = await openPointInTimeRecovery(database, { directory, encryptionKey: key, exportIntervalMs: false });
    try {
      return await recovery.flush();
    } finally {
      await recovery.close();
    }
  } finally {
    sqlite.close();
  }
}

/** Rotate: flush + retain the old epoch, restore its final sequence, verify, and put it in place. */
export async function rotateStoppedEpoch(input: RotationInput): Promise<RotationResult> {
  const flushed = await flushStoppedEpoch(input.databasePath, input.epoch.directory, input.key);
  if (flushed.fenced !== null)
    throw new SvcError('SVC_RECOVERY_FENCED', `Epoch ${input.epoch.id} is fenced (${flushed.fenced}); restore a verified epoch instead.`);
  if (flushed.exportedThrough !== flushed.committedThrough)
    throw new SvcError(
      'SVC_RECOVERY_SEQUENCE_UNAVAILABLE',
      `Epoch ${input.epoch.id} exported ${flushed.exportedThrough} of ${flushed.committedThrough} commits.`,
    );
  const restored = join(input.scratchDir, `rotate-${randomBytes(6).toString('hex')}.db`);
  try {
    const final = await restorePointInTimeOffThread({
      directory: input.epoch.directory,
      encryptionKey: input.key,
      targetPath: restored,
      throughSequence: flushed.exportedThrough,
      confirmation: 'restore point in time',
    });
    if ((await databaseFingerprintOffThread(restored)) !== (await databaseFingerprintOffThread(input.databasePath))) {
      throw new SvcError(
        'SVC_RECOVERY_ROTATION_MISMATCH',
        `The final sequence ${final.sequence} of epoch ${input.epoch.id} does not restore to the stopped database.`,
      );
    }
    await input.jobs.runJob({ type: 'restore-snapshot', snapshotPath: restored, databasePath: input.databasePath });
    return { fromEpoch: input.epoch.id, fromEpochId: final.epochId, finalSequence: final.sequence };
  } finally {
    await rm(restored, { force: true });
  }
}

/** How long the drill waits for the started app to begin its epoch. */
export const ATTACH_WAIT_MS = 10_000;

/**
 * The drill of a started candidate: its epoch must exist, be the epoch of the live database, and
 * restore (authenticated, seal-checked) into a scratch file. Throws SVC_RECOVERY_APP_NOT_ATTACHED when
 * the app never attached.
 */
export async function verifyStartedEpoch(input: {
  root: string;
  epochDir: string;
  databasePath: string;
  key: Uint8Array;
  scratchDir: string;
  waitMs?: number;
}): Promise<EpochInfo> {
  const deadline = Date.now() + (input.waitMs ?? ATTACH_WAIT_MS);
  let info = await readEpochInfo(input.root, input.epochDir, input.key);
  while (!(info.verified && readDatabaseEpoch(input.databasePath)?.epochId === info.epochId)) {
    if (Date.now() > deadline) {
      throw new SvcError(
        'SVC_RECOVERY_APP_NOT_ATTACHED',
        `Recovery is enabled, but the app did not begin epoch ${input.epochDir} within ${input.waitMs ?? ATTACH_WAIT_MS} ms (call attachPlatformRecovery).`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    info = await readEpochInfo(input.root, input.epochDir, input.key);
  }
  const drill = join(input.scratchDir, `drill-${randomBytes(6).toString('hex')}.db`);
  try {
    await restorePointInTimeOffThread({
      directory: info.directory,
      encryptionKey: input.key,
      targetPath: drill,
      throughSequence: info.exportedThrough!,
      confirmation: 'restore point in time',
    });
  } finally {
    await rm(drill, { force: true });
  }
  return info;
}

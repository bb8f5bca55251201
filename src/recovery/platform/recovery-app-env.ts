// The two variables an app start gets when its project has recovery enabled: SVC_RECOVERY_DIR (the
// epoch repository the app attaches to) and SVC_RECOVERY_KEY (base64 of the project key). The epoch is
// chosen from the database file: one carrying metadata continues its own epoch; one without begins a
// new epoch in a fresh directory (first enable, after a rotation, after activating a restore).
import { SvcError } from '../../core/errors.js';
import type { EpochInfo } from './epoch-directories.js';
import type { DatabaseEpoch } from './database-epoch.js';

/** What to give the app, decided from the database's epoch and the epoch directories. Pure. */
export type EpochChoice = { kind: 'continue'; epoch: EpochInfo } | { kind: 'begin' };

/** Continue the database's epoch if its repository exists; begin a new one if the database has none. */
export function chooseEpoch(database: DatabaseEpoch | null, epochs: readonly EpochInfo[]): EpochChoice {
  if (database === null) return { kind: 'begin' };
  const epoch = epochs.find((e) => e.epochId === database.epochId);
  if (!epoch) {
    throw new SvcError(
      'SVC_RECOVERY_REPOSITORY_MISMATCH',
      `The project database belongs to recovery epoch ${database.epochId}, whose repository is not under the project's recovery directory.`,
      {
        details: { epochId: database.epochId },
      },
    );
  }
  if (!epoch.verified)
    throw new SvcError('SVC_RECOVERY_TAMPERED', `The repository of epoch ${epoch.id} failed authentication.`, { details: { epoch: epoch.id } });
  if (epoch.exportedThrough !== null && epoch.exportedThrough > database.committedThrough) {
    // The file is an older state of the epoch (a backup restored into place): continuing would fork it.
    throw new SvcError(
      'SVC_RECOVERY_REPOSITORY_MISMATCH',
      `The project database is at sequence ${database.committedThrough} of epoch ${epoch.id}, whose repository is already at ${epoch.exportedThrough}.`,
      {
        details: { epoch: epoch.id, committedThrough: database.committedThrough, exportedThrough: epoch.exportedThrough },
      },
    );
  }
  return { kind: 'continue', epoch };
}

/** The environment of an app start. */
export function recoveryEnv(directory: string, key: Uint8Array): Record<string, string> {
  return { SVC_RECOVERY_DIR: directory, SVC_RECOVERY_KEY: Buffer.from(key).toString('base64') };
}

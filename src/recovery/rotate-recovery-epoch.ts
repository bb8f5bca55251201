// Epoch rotation for a migration (an epoch cannot journal a schema change), as one procedure: flush and retain the old epoch,
// restore its final sequence into a new stopped database, migrate it, open it, attach a new repository,
// verify a drill, and hand the new database back for the switch-over. The old database and archive are
// never modified or deleted.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { SvcError } from '../core/errors.js';
import { inspectManagedTables, schemaHash } from './managed-tables.js';
import { openPointInTimeRecovery, type PointInTimeRecovery } from './open-point-in-time-recovery.js';
import type { PointInTimeRecoveryOptions, RecoveryDatabase } from './recovery-options.js';
import { restorePointInTime } from './restore-point-in-time.js';
import { scanState } from './state-index.js';

/** rotateRecoveryEpoch options. Writers of the old database must already be stopped. */
export interface RotateRecoveryEpochOptions<D extends RecoveryDatabase> {
  /** The attached recovery of the old epoch; it is flushed and closed (its archive is kept). */
  recovery: PointInTimeRecovery;
  /** Repository directory of the old epoch. */
  directory: string;
  encryptionKey: Uint8Array;
  /** Path of the new database; must not exist (it is created stopped, by restore). */
  newDatabasePath: string;
  /** Empty or missing directory for the new epoch's repository. */
  newDirectory: string;
  /** Key of the new epoch (default: the same key). */
  newEncryptionKey?: Uint8Array;
  /** Migrate the new, stopped database (the only place raw DDL is allowed). */
  migrate(path: string): void | Promise<void>;
  /** Open the migrated database and initialize services; returns the runtime database to attach. */
  open(path: string): D | Promise<D>;
  /** Further options of the new epoch's recovery. */
  recoveryOptions?: Omit<PointInTimeRecoveryOptions, 'directory' | 'encryptionKey'>;
}

/** Result of a rotation: the new database with its recovery attached, ready for the switch-over. */
export interface RotatedEpoch<D extends RecoveryDatabase> {
  readonly database: D;
  readonly recovery: PointInTimeRecovery;
  readonly previousEpochId: string;
  /** Last sequence of the old epoch; the new epoch starts from exactly this state plus the migration. */
  readonly finalSequence: number;
  readonly epochId: string;
}

/** Rotate to a new epoch around a migration; throws and leaves the old epoch untouched on any failure. */
export async function rotateRecoveryEpoch<D extends RecoveryDatabase>(options: RotateRecoveryEpochOptions<D>): Promise<RotatedEpoch<D>> {
  if (existsSync(options.newDatabasePath))
    throw new SvcError('SVC_RECOVERY_OPTIONS_INVALID', `${options.newDatabasePath} already exists; rotation creates a new database.`);
  if (existsSync(options.newDirectory) && readdirSync(options.newDirectory).length > 0)
    throw new SvcError('SVC_RECOVERY_OPTIONS_INVALID', `${options.newDirectory} is not empty; a new epoch needs its own directory.`);
  // 1. Flush and retain the old epoch.
  const flushed = await options.recovery.flush();
  if (flushed.fenced !== null) throw new SvcError('SVC_RECOVERY_FENCED', `The old epoch is fenced (${flushed.fenced}); restore a verified epoch instead.`);
  if (flushed.exportedThrough !== flushed.committedThrough)
    throw new SvcError('SVC_RECOVERY_SEQUENCE_UNAVAILABLE', 'Not every committed entry of the old epoch is exported; stop writers and retry.');
  await options.recovery.close();
  // 2. Restore its final sequence into a new stopped database.
  const final = await restorePointInTime({
    directory: options.directory,
    encryptionKey: options.encryptionKey,
    targetPath: options.newDatabasePath,
    throughSequence: flushed.exportedThrough,
    confirmation: 'restore point in time',
  });
  // 3. Migrate it while it is stopped.
  await options.migrate(options.newDatabasePath);
  // 4. Open it and initialize services, 5. attach a new repository (its base is the migrated state).
  const database = await options.open(options.newDatabasePath);
  const key = options.newEncryptionKey ?? options.encryptionKey;
  const recovery = await openPointInTimeRecovery(database, { ...options.recoveryOptions, directory: options.newDirectory, encryptionKey: key });
  // 6. Verify a drill: the new epoch's base restores to exactly the live new database.
  await verifyDrill(database, options.newDirectory, key, options.newDatabasePath, recovery);
  return { database, recovery, previousEpochId: final.epochId, finalSequence: final.sequence, epochId: recovery.status().epochId };
}

async function verifyDrill(database: RecoveryDatabase, directory: string, key: Uint8Array, nearPath: string, recovery: PointInTimeRecovery): Promise<void> {
  const status = await recovery.flush();
  const drill = join(dirname(nearPath), `.${basename(nearPath)}.drill-${randomBytes(6).toString('hex')}.db`);
  try {
    await restorePointInTime({
      directory,
      encryptionKey: key,
      targetPath: drill,
      throughSequence: status.exportedThrough,
      confirmation: 'restore point in time',
    });
    const copy = new Database(drill, { readonly: true });
    try {
      const live = fingerprint(database.sqlite);
      if (fingerprint(copy) !== live) throw new SvcError('SVC_RECOVERY_VERIFY_FAILED', 'The new epoch’s drill restore does not match the new database.');
    } finally {
      copy.close();
    }
  } finally {
    await rm(drill, { force: true });
  }
}

function fingerprint(db: Database.Database): string {
  return `${schemaHash(db)}:${scanState(db, inspectManagedTables(db), Number.MAX_SAFE_INTEGER).accumulator.toString(16)}`;
}

// Options of openPointInTimeRecovery and restorePointInTime (docs/recovery.md), validated at the edge.
import type BetterSqlite3 from 'better-sqlite3';
import { z } from 'zod';
import type { Clock } from '../core/clock.js';
import { SvcError } from '../core/errors.js';
import type { IdGenerator } from '../core/ids.js';
import { checkEncryptionKey } from './recovery-keys.js';

/** The confirmation phrase restore requires, so a restore is never run by accident. */
export const RESTORE_CONFIRMATION = 'restore point in time';

/** What recovery needs from the runtime database (src/runtime's RuntimeDatabase satisfies it). */
export interface RecoveryDatabase {
  /** The one connection all managed writes use. */
  readonly sqlite: BetterSqlite3.Database;
  /** Run inside the write transaction just before COMMIT; a throw rolls the transaction back. */
  onBeforeCommit(hook: (tx: BetterSqlite3.Database, info: unknown) => void): () => void;
}

/** openPointInTimeRecovery options. */
export interface PointInTimeRecoveryOptions {
  /** Repository directory of this epoch (created if missing). */
  directory: string;
  /** Exactly 32 bytes; never stored beside the archive. */
  encryptionKey: Uint8Array;
  /** Export committed entries this often (default 1000 ms; `false` exports only on flush()). */
  exportIntervalMs?: number | false;
  /** Largest journal entry (plaintext bytes) of one transaction (default 16 MiB). */
  maxTransactionBytes?: number;
  /** Largest journaled state, sum of canonical row sizes (default 1 GiB). */
  maxStateBytes?: number;
  /** Time source for commit times (default the system clock). */
  clock?: Clock;
  /** Id generator for the epoch id (default random). */
  ids?: IdGenerator;
  /** Receives export failures of the background interval (default console.error). */
  onExportError?: (error: unknown) => void;
}

const positiveInt = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const openSchema = z.object({
  directory: z.string().min(1),
  exportIntervalMs: z.union([z.literal(false), z.number().int().min(10).max(86_400_000)]).default(1000),
  maxTransactionBytes: positiveInt.default(16 * 1024 * 1024),
  maxStateBytes: positiveInt.default(1024 * 1024 * 1024),
});

/** Validated open options. */
export type CheckedOpenOptions = z.infer<typeof openSchema> & { encryptionKey: Buffer };

/** Validate open options; throws SVC_RECOVERY_KEY_INVALID or SVC_RECOVERY_OPTIONS_INVALID. */
export function checkOpenOptions(options: PointInTimeRecoveryOptions): CheckedOpenOptions {
  const encryptionKey = checkEncryptionKey(options?.encryptionKey);
  const parsed = openSchema.safeParse({
    directory: options.directory,
    exportIntervalMs: options.exportIntervalMs,
    maxTransactionBytes: options.maxTransactionBytes,
    maxStateBytes: options.maxStateBytes,
  });
  if (!parsed.success) throw optionsError(parsed.error);
  return { ...parsed.data, encryptionKey };
}

/** restorePointInTime options: exactly one of throughSequence and asOf. */
export interface RestorePointInTimeOptions {
  directory: string;
  encryptionKey: Uint8Array;
  /** Database file to create or replace; must be stopped (no open connection). */
  targetPath: string;
  /** Restore through this committed sequence (0 is the base snapshot). */
  throughSequence?: number;
  /** Restore the latest commit at or before this time (ms since the epoch). */
  asOf?: number;
  /** Must be exactly "restore point in time". */
  confirmation: string;
}

const restoreSchema = z
  .object({
    directory: z.string().min(1),
    targetPath: z.string().min(1),
    throughSequence: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
    asOf: z.number().int().nonnegative().max(8.64e15).optional(),
  })
  .refine((o) => (o.throughSequence === undefined) !== (o.asOf === undefined), {
    message: 'give exactly one of throughSequence and asOf',
    path: ['throughSequence'],
  });

/** Validated restore options. */
export type CheckedRestoreOptions = z.infer<typeof restoreSchema> & { encryptionKey: Buffer };

/** Validate restore options; the confirmation is checked first. */
export function checkRestoreOptions(options: RestorePointInTimeOptions): CheckedRestoreOptions {
  if (options?.confirmation !== RESTORE_CONFIRMATION) throw new SvcError('SVC_RECOVERY_CONFIRMATION_REQUIRED', `Pass confirmation: "${RESTORE_CONFIRMATION}".`);
  const encryptionKey = checkEncryptionKey(options.encryptionKey);
  const parsed = restoreSchema.safeParse({
    directory: options.directory,
    targetPath: options.targetPath,
    throughSequence: options.throughSequence,
    asOf: options.asOf,
  });
  if (!parsed.success) throw optionsError(parsed.error);
  return { ...parsed.data, encryptionKey };
}

function optionsError(error: z.ZodError): SvcError {
  const issue = error.issues[0];
  return new SvcError('SVC_RECOVERY_OPTIONS_INVALID', `${issue?.path.join('.') || 'options'}: ${issue?.message ?? 'invalid'}`, {
    details: { field: issue?.path.join('.') },
  });
}

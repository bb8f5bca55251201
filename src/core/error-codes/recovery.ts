import { defineCodes } from './define.js';

/** Codes raised by point-in-time recovery: capture, journal, repository and restore. */
export const recoveryCodes = defineCodes({
  SVC_RECOVERY_KEY_INVALID: {
    status: 400,
    retryable: false,
    summary: 'The recovery encryption key is not exactly 32 bytes, or it is not the key this repository was written with.',
    hint: 'Pass the same 32-byte key that was used when recovery was enabled (it is never stored beside the archive).',
  },
  SVC_RECOVERY_OPTIONS_INVALID: {
    status: 400,
    retryable: false,
    summary: 'A point-in-time recovery or restore option is missing or out of range; the message names it.',
    hint: 'Fix the option named in the message; docs/recovery.md lists the options and their ranges.',
  },
  SVC_RECOVERY_TABLE_UNSUPPORTED: {
    status: 400,
    retryable: false,
    summary: 'A table cannot be journaled: no primary key, a null key value, a virtual table, or a generated or hidden column.',
    hint: 'Give the table a non-null primary key and plain columns, or keep it out of the recovered database.',
  },
  SVC_RECOVERY_TOO_MANY_ROWS: {
    status: 400,
    retryable: false,
    summary: 'A journaled table would hold more than 200,000 rows; the write was rolled back.',
    hint: 'Delete old rows or move bulk data into a separate SQLite database; every table of the journaled database must stay under 200,000 rows.',
  },
  SVC_RECOVERY_TRANSACTION_TOO_LARGE: {
    status: 413,
    retryable: false,
    summary: 'The transaction’s journal entry exceeds maxTransactionBytes; the app write and the entry were rolled back.',
    hint: 'Split the write into smaller mutations or raise maxTransactionBytes.',
  },
  SVC_RECOVERY_STATE_TOO_LARGE: {
    status: 413,
    retryable: false,
    summary: 'The journaled database state would exceed maxStateBytes; the write was rolled back.',
    hint: 'Delete data or raise maxStateBytes.',
  },
  SVC_RECOVERY_UNSAFE_INTEGER: {
    status: 400,
    retryable: false,
    summary: 'A journaled row holds an integer outside JavaScript’s safe range (±2^53−1); the write was rolled back.',
    hint: 'Store such values as TEXT, or keep integers within ±(2^53−1), in journaled tables.',
  },
  SVC_RECOVERY_FENCED: {
    status: 409,
    retryable: false,
    summary: 'Another connection or a schema change wrote to the recovered database; managed writes are fenced.',
    hint: 'Stop the other writer and restore a verified epoch (see docs/recovery.md); the seal is never overwritten.',
  },
  SVC_RECOVERY_NOT_ATTACHED: {
    status: 409,
    retryable: false,
    summary: 'The database carries a recovery journal but recovery is not attached (or was closed); managed writes are rejected.',
    hint: 'Call openPointInTimeRecovery(database, options) before writing.',
  },
  SVC_RECOVERY_SEAL_INVALID: {
    status: 409,
    retryable: false,
    summary: 'The database no longer matches its recovery seal: it was written by an unexpected writer.',
    hint: 'Restore a verified epoch with restorePointInTime and begin a new epoch from it.',
  },
  SVC_RECOVERY_REPOSITORY_MISMATCH: {
    status: 409,
    retryable: false,
    summary: 'The recovery directory belongs to another epoch or database, or is behind the database.',
    hint: 'Use the directory this epoch was started with, or rotate to a new epoch with an empty directory.',
  },
  SVC_RECOVERY_REPOSITORY_INVALID: {
    status: 422,
    retryable: false,
    summary: 'The recovery directory is missing epoch.json, head.json or base/, or a file is malformed.',
    hint: 'Point the restore at a complete recovery directory (with epoch.json, head.json and base/), for example a fresh copy from backup.',
  },
  SVC_RECOVERY_TAMPERED: {
    status: 422,
    retryable: false,
    summary: 'An entry or the base failed authentication or its hash link (details.sequence names it; 0 is the base); nothing was published.',
    hint: 'Restore from an untouched copy of the recovery directory, or to a sequence before details.sequence.',
  },
  SVC_RECOVERY_GAP: {
    status: 422,
    retryable: false,
    summary: 'The exported journal is missing a sequence (details.sequence); nothing was published.',
    hint: 'Restore to a sequence before details.sequence, or from a complete copy of the exported journal.',
  },
  SVC_RECOVERY_CONFLICT: {
    status: 422,
    retryable: false,
    summary: 'The exported journal holds a duplicate or out-of-order sequence (details.sequence); nothing was published.',
    hint: 'Restore to a sequence before details.sequence, or from a clean copy of the exported journal.',
  },
  SVC_RECOVERY_SEQUENCE_UNAVAILABLE: {
    status: 404,
    retryable: false,
    summary: 'The requested sequence has not been exported to the repository.',
    hint: 'Flush recovery first, or choose a sequence at most exportedThrough.',
  },
  SVC_RECOVERY_BEFORE_BASE: {
    status: 404,
    retryable: false,
    summary: 'The requested time is before the epoch’s base snapshot.',
    hint: 'Choose a later time, or an older epoch with --epoch (`svc recovery status` lists them).',
  },
  SVC_RECOVERY_CONFIRMATION_REQUIRED: {
    status: 400,
    retryable: false,
    summary: 'Restore needs confirmation: "restore point in time".',
    hint: 'Pass confirmation: "restore point in time" to the restore call (see docs/recovery.md, "Restoring").',
  },
  SVC_RECOVERY_DESTINATION_BUSY: {
    status: 409,
    retryable: true,
    summary: 'The restore destination is open by another connection or process; restore only into a stopped database.',
    hint: 'Stop the app using the destination and retry.',
  },
  SVC_RECOVERY_VERIFY_FAILED: {
    status: 500,
    retryable: false,
    summary: 'The replayed database did not match the recorded state seal or failed integrity_check; nothing was published.',
    hint: 'Restore to an earlier sequence or from another epoch (`svc recovery status` lists them).',
  },
  // Platform side (src/recovery/platform): per-project recovery of hosted apps.
  SVC_RECOVERY_NOT_ENABLED: {
    status: 409,
    retryable: false,
    summary: 'Point-in-time recovery is not enabled for this project.',
    hint: 'Enable it with `svc recovery enable`; it takes effect on the next release or supervised restart.',
  },
  SVC_RECOVERY_DISABLE_UNSUPPORTED: {
    status: 400,
    retryable: false,
    summary: 'Turning point-in-time recovery off is not supported in this version; only {"enabled": true} is accepted.',
    hint: 'Leave recovery enabled; send only {"enabled": true} (`svc recovery enable`).',
  },
  SVC_RECOVERY_EPOCH_NOT_FOUND: {
    status: 404,
    retryable: false,
    summary: 'No recovery epoch with that id (or none covering that time) exists for the project.',
    hint: 'List epochs with `svc recovery status`.',
  },
  SVC_RECOVERY_RESTORE_NOT_FOUND: {
    status: 404,
    retryable: false,
    summary: 'No restored database with that id exists for the project (or it was already activated).',
    hint: 'List restores with `svc recovery status`, or create a new one with `svc recovery restore`.',
  },
  SVC_RECOVERY_CONFIRMATION_MISMATCH: {
    status: 400,
    retryable: false,
    summary: 'Activating a restored database needs the exact confirmation "restore <project-slug>".',
    hint: 'Run `svc recovery restore --activate` again with --confirm="restore <project-slug>" exactly.',
  },
  SVC_RECOVERY_APP_NOT_ATTACHED: {
    status: 502,
    retryable: false,
    summary: 'Recovery is enabled but the started app did not begin its recovery epoch (no epoch.json appeared).',
    hint: 'Call attachPlatformRecovery(db) from @svc-dev/svc/operations after opening the database (see docs/recovery.md, "On the platform").',
  },
  SVC_RECOVERY_ROTATION_MISMATCH: {
    status: 500,
    retryable: false,
    summary: 'The restored final state of the old epoch does not equal the stopped database; the release was not migrated.',
    hint: 'The database was written outside recovery; restore a verified epoch.',
  },
  SVC_RECOVERY_NO_DATABASE: {
    status: 409,
    retryable: false,
    summary: 'The project has no release (and so no database) yet.',
    hint: 'Deploy a release with `svc deploy` first.',
  },
});

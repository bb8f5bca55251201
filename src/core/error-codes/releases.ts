import { defineCodes } from './define.js';

/** Codes raised by releases, migrations, snapshots, the durable project lock and the app runners. */
export const releaseCodes = defineCodes({
  SVC_PROJECT_LOCKED: {
    status: 409,
    retryable: true,
    summary: 'Another operation (named in the message) holds the project lock.',
    hint: 'Wait for the running deploy, rollback, cleanup, backup or deletion to finish, then retry.',
  },
  SVC_LOCK_NOT_HELD: { status: 409, retryable: false, summary: 'The project lock was released with a token that does not hold it (it was recovered or released already).' },
  SVC_RELEASE_INVALID_TRANSITION: { status: 409, retryable: false, summary: 'The release cannot go through this transition from its current state.' },
  SVC_RELEASE_ACTIVE_UNDELETABLE: { status: 409, retryable: false, summary: 'The active release artifact is never removable.', hint: 'Deploy or roll back to another release first.' },
  SVC_ROLLBACK_LOSS_NOT_ALLOWED: {
    status: 409,
    retryable: false,
    summary: 'Deleting the predecessor of the active release removes the only rollback target and its data-restore snapshot.',
    hint: 'Pass --allow-rollback-loss if that is intended.',
  },
  SVC_RESTORE_NOT_ALLOWED: {
    status: 409,
    retryable: false,
    summary: 'Data restore is possible only for the immediately previous release, and only if it has a pre-deploy snapshot.',
    hint: 'Roll back without --restore-data (code only), or choose the immediately previous release.',
  },
  SVC_RELEASE_CONFIRMATION_MISMATCH: { status: 400, retryable: false, summary: 'The confirmation phrase does not match exactly.', hint: 'Retype the phrase shown in the message.' },
  SVC_ROLLBACK_PERMISSION_REQUIRED: { status: 403, retryable: false, summary: 'Deleting or rolling back releases needs the `rollback` permission.' },
  SVC_MIGRATION_HISTORY_EDITED: {
    status: 409,
    retryable: false,
    summary: 'An already-applied migration file was changed (checksum differs) or renamed; history is immutable.',
    hint: 'Restore the original file and put the change in a new migration.',
  },
  SVC_MIGRATION_MISSING: { status: 409, retryable: false, summary: 'A migration recorded as applied is missing from the release.', hint: 'Keep every applied migration file in the migrations directory.' },
  SVC_MIGRATION_OUT_OF_ORDER: {
    status: 409,
    retryable: false,
    summary: 'A new migration is numbered below one already applied, or two files share a number.',
    hint: 'Number new migrations above the last applied one.',
  },
  SVC_MIGRATION_INVALID_NAME: { status: 400, retryable: false, summary: 'A file in the migrations directory is not named NNNN_name.sql.' },
  SVC_MIGRATION_UNSAFE: {
    status: 400,
    retryable: false,
    summary: 'A migration contains an unsafe statement (ATTACH, PRAGMA, VACUUM, transaction control, or a write to a reserved table).',
    hint: 'Remove the statement, or set database.allowUnsafeMigrations and enable unsafe migrations in the operator settings.',
  },
  SVC_MIGRATION_FAILED: { status: 422, retryable: false, summary: 'A migration failed; every pending migration was rolled back (the message names the file).' },
  SVC_SNAPSHOT_FAILED: { status: 500, retryable: true, summary: 'The consistent database backup could not be created.' },
  SVC_SNAPSHOT_MISSING: { status: 404, retryable: false, summary: 'The snapshot file to restore from does not exist.' },
  SVC_APP_START_FAILED: { status: 502, retryable: false, summary: 'The app process could not be started or exited during start-up.' },
  SVC_HEALTH_CHECK_FAILED: { status: 502, retryable: false, summary: 'The app did not answer its health route with 2xx before the timeout.', hint: 'Check `svc logs` for the release.' },
  SVC_RUNNER_NO_FREE_PORT: { status: 503, retryable: true, summary: 'No free loopback port could be allocated for the app.' },
});

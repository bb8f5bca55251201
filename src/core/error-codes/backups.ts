import { defineCodes } from './define.js';

/** Encrypted project-database backups and their schedules (src/backups). */
export const backupsCodes = defineCodes({
  SVC_BACKUP_NOT_FOUND: {
    status: 404,
    retryable: false,
    summary: 'The project has no backup with this id (or its file was pruned).',
    hint: 'List backups with `svc backups` and use one of their ids.',
  },
  SVC_BACKUP_FAILED: {
    status: 500,
    retryable: true,
    summary: 'The backup could not be taken; the failure is audited as backup.failed and nothing was kept.',
    hint: 'Retry with `svc backups create`; if it fails again, check free disk space in the platform data directory.',
  },
  SVC_BACKUP_DECRYPT_FAILED: {
    status: 422,
    retryable: false,
    summary: 'The backup file failed authentication (altered, truncated, or encrypted under another key); nothing was decrypted or restored.',
    hint: 'Use another backup from `svc backups`, and check that the platform master key is the one it was taken under.',
  },
  SVC_BACKUP_CONFIRMATION_MISMATCH: {
    status: 400,
    retryable: false,
    summary: 'Restoring a backup needs the exact phrase `restore <project-slug>`.',
    hint: 'Retype the phrase shown in the message.',
  },
  SVC_BACKUP_SCHEDULE_INVALID: {
    status: 400,
    retryable: false,
    summary: 'A backup schedule needs an interval of 5 minutes to 30 days, keep 1–1000 backups and a maximum age of at least the interval.',
    hint: 'Run `svc backups schedule` with --every 5 to 43200, --keep 1 to 1000 and --max-age-days covering at least one interval.',
  },
  SVC_BACKUP_NO_RELEASE: {
    status: 409,
    retryable: false,
    summary: 'The project has no release yet, so it has no database to back up or restore into.',
    hint: 'Deploy first.',
  },
});

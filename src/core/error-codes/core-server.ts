import { defineCodes } from './define.js';

/** The control-plane server itself: configuration, control database, readiness. */
export const coreServerCodes = defineCodes({
  SVC_PLATFORM_CONFIG_INVALID: {
    status: 400,
    retryable: false,
    configuration: 'svc-platform',
    summary: 'A flag or SVC_* environment variable has an invalid value.',
    hint: 'Fix the flag or variable named in the message (allowed values in docs/configuration.md) and start again.',
  },
  SVC_DB_SCHEMA_TOO_NEW: { status: 500, retryable: false, summary: 'The control database was written by a newer svc version.', hint: 'Upgrade svc-platform.' },
  SVC_DB_MIGRATION_FAILED: {
    status: 500,
    retryable: false,
    summary: 'A control-database migration failed and was rolled back.',
    hint: 'The database was left at the last good version; fix the cause in the message (disk space, permissions) and start again, or keep running the previous svc version.',
  },
  SVC_NOT_READY: {
    status: 503,
    retryable: true,
    summary: 'The control plane is not ready (storage check failed).',
    hint: 'Check that the data directory (SVC_DATA_DIR) is writable and has free space; GET /readyz shows the failing check.',
  },
});

import { defineCodes } from './define.js';

/** Operations: signed audit export and the operations monitor (src/ops). */
export const opsCodes = defineCodes({
  SVC_PLATFORM_ADMIN_REQUIRED: {
    status: 403,
    retryable: false,
    summary: 'This route needs a platform administrator browser session (the first registered account).',
    hint: 'Sign in to the console as the platform administrator (the first registered account).',
  },
  SVC_AUDIT_EXPORT_NONCONTIGUOUS: {
    status: 500,
    retryable: false,
    summary: 'Audit export stopped: the audit log has a gap in its identifiers; nothing past the gap was signed.',
    hint: 'Investigate the audit log; export resumes only over contiguous identifiers.',
  },
  SVC_AUDIT_EXPORT_MALFORMED: {
    status: 400,
    retryable: false,
    summary: 'An audit export entry is not in the expected shape (truncated or altered).',
    hint: 'Fetch the export again from its destination; a truncated or edited file cannot be verified.',
  },
  SVC_AUDIT_EXPORT_TAMPERED: {
    status: 400,
    retryable: false,
    summary: 'An audit export entry does not match its digest, chain link or signature (mutation).',
    hint: 'Treat the export as altered: compare it with another copy from the destination and investigate who changed it.',
  },
  SVC_AUDIT_EXPORT_SEQUENCE: {
    status: 400,
    retryable: false,
    summary: 'Audit export entries are missing or out of order (omission or reordering).',
    hint: 'Verify the complete export in sequence order; missing or reordered entries mean it was altered.',
  },
  SVC_AUDIT_EXPORT_ROLLBACK: {
    status: 400,
    retryable: false,
    summary: 'The audit export does not reach or match the retained checkpoint (suffix removed or rolled back).',
    hint: 'Verify an export that reaches your retained checkpoint; a shorter or different one means entries were removed.',
  },
  SVC_AUDIT_EXPORT_UNKNOWN_KEY: {
    status: 400,
    retryable: false,
    summary: 'An audit export entry is signed with a key id that is not among the trusted public keys.',
    hint: 'Pass the public key for that key id with --key <id>=<file>.pem to `npm run verify-audit-export`.',
  },
  SVC_AUDIT_EXPORT_CONFIG: {
    status: 500,
    retryable: false,
    configuration: 'svc-platform',
    summary: 'The audit export configuration is invalid (key file, key id or destination).',
    hint: 'Fix SVC_AUDIT_EXPORT_KEY_FILE, SVC_AUDIT_EXPORT_KEY_ID or SVC_AUDIT_EXPORT_URL as described in docs/audit-export.md.',
  },
  SVC_OPS_NOT_CONFIGURED: {
    status: 409,
    retryable: false,
    summary: 'The operations monitor is not configured (set SVC_OPS_WEBHOOK_URL and SVC_OPS_WEBHOOK_SECRET).',
    hint: 'Set SVC_OPS_WEBHOOK_URL and SVC_OPS_WEBHOOK_SECRET and restart the platform (see docs/operations-monitoring.md).',
  },
  SVC_OPS_CONFIG: {
    status: 500,
    retryable: false,
    configuration: 'svc-platform',
    summary: 'The operations monitor configuration is invalid.',
    hint: 'Fix the SVC_OPS_* variable named in the message (see docs/operations-monitoring.md) and restart the platform.',
  },
  SVC_OPS_USAGE_CONFIG: {
    status: 500,
    retryable: false,
    configuration: 'svc-platform',
    summary: 'The usage quota configuration is invalid (SVC_PROJECT_MONTHLY_REQUESTS, SVC_PROJECT_MONTHLY_TRANSFER_BYTES or SVC_OPS_USAGE_WARNING_PERCENT).',
    hint: 'Fix the variable named in the message to a positive number (see docs/operations-monitoring.md) and restart the platform.',
  },
  SVC_OPS_DRILL_TIMEOUT: {
    status: 504,
    retryable: true,
    summary: 'A restore drill did not finish within its time limit.',
    hint: 'Raise SVC_RESTORE_DRILL_TIMEOUT_MS, or make the app boot and pass its checks faster.',
  },
  SVC_OPS_DRILL_SETUP: {
    status: 500,
    retryable: true,
    summary: 'A restore drill could not restore the backup into its private copy (retried after five minutes).',
    hint: "Check that the project's newest backup restores (`svc backups download <id>`); the drill retries after five minutes.",
  },
  SVC_OPS_DRILL_CONFIG: {
    status: 500,
    retryable: false,
    configuration: 'svc-platform',
    summary: 'The restore drill configuration is invalid (SVC_RESTORE_DRILL_INTERVAL_MS, _TIMEOUT_MS, _CHECKS or _SECRETS).',
    hint: 'Fix the SVC_RESTORE_DRILL_* variable named in the message (see docs/operations-monitoring.md) and restart the platform.',
  },
  SVC_OPS_DRILL_FAILED: {
    status: 500,
    retryable: false,
    summary: 'A restore drill booted the restored copy but the application or one of its loopback checks failed.',
    hint: 'Check that the app boots from the restored backup and that SVC_RESTORE_DRILL_CHECKS matches its routes (see docs/operations-monitoring.md).',
  },
  SVC_METRICS_DISABLED: {
    status: 404,
    retryable: false,
    summary: 'GET /metrics is off: the platform has no SVC_METRICS_TOKEN, so it serves no metrics to anyone.',
    hint: 'Set SVC_METRICS_TOKEN (at least 32 characters) and restart the platform; give Prometheus the same token as a bearer credential (see docs/operations.md).',
  },
  SVC_METRICS_UNAUTHORIZED: {
    status: 401,
    retryable: false,
    summary: 'GET /metrics needs the metrics token as a bearer credential (Authorization: Bearer <SVC_METRICS_TOKEN>).',
    hint: "Set the scrape job's `authorization: { type: Bearer, credentials_file: ... }` to the platform's SVC_METRICS_TOKEN (see docs/operations.md).",
  },
  SVC_METRICS_CONFIG: {
    status: 500,
    retryable: false,
    configuration: 'svc-platform',
    summary: 'SVC_METRICS_TOKEN is set but too short or not printable (it needs 32–512 visible ASCII characters).',
    hint: 'Generate one with `openssl rand -hex 32`, set SVC_METRICS_TOKEN to it and restart the platform (see docs/operations.md).',
  },
});

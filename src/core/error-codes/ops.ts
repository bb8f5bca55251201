import { defineCodes } from './define.js';

/** Operations: signed audit export and the operations monitor (src/ops). */
export const opsCodes = defineCodes({
  SVC_PLATFORM_ADMIN_REQUIRED: { status: 403, retryable: false, summary: 'This route needs a platform administrator browser session (the first registered account).' },
  SVC_AUDIT_EXPORT_NONCONTIGUOUS: { status: 500, retryable: false, summary: 'Audit export stopped: the audit log has a gap in its identifiers; nothing past the gap was signed.', hint: 'Investigate the audit log; export resumes only over contiguous identifiers.' },
  SVC_AUDIT_EXPORT_MALFORMED: { status: 400, retryable: false, summary: 'An audit export entry is not in the expected shape (truncated or altered).' },
  SVC_AUDIT_EXPORT_TAMPERED: { status: 400, retryable: false, summary: 'An audit export entry does not match its digest, chain link or signature (mutation).' },
  SVC_AUDIT_EXPORT_SEQUENCE: { status: 400, retryable: false, summary: 'Audit export entries are missing or out of order (omission or reordering).' },
  SVC_AUDIT_EXPORT_ROLLBACK: { status: 400, retryable: false, summary: 'The audit export does not reach or match the retained checkpoint (suffix removed or rolled back).' },
  SVC_AUDIT_EXPORT_UNKNOWN_KEY: { status: 400, retryable: false, summary: 'An audit export entry is signed with a key id that is not among the trusted public keys.' },
  SVC_AUDIT_EXPORT_CONFIG: { status: 500, retryable: false, summary: 'The audit export configuration is invalid (key file, key id or destination).' },
  SVC_OPS_NOT_CONFIGURED: { status: 409, retryable: false, summary: 'The operations monitor is not configured (set SVC_OPS_WEBHOOK_URL and SVC_OPS_WEBHOOK_SECRET).' },
  SVC_OPS_CONFIG: { status: 500, retryable: false, summary: 'The operations monitor configuration is invalid.' },
  SVC_OPS_USAGE_CONFIG: { status: 500, retryable: false, summary: 'The usage quota configuration is invalid (SVC_PROJECT_MONTHLY_REQUESTS, SVC_PROJECT_MONTHLY_TRANSFER_BYTES or SVC_OPS_USAGE_WARNING_PERCENT).' },
  SVC_OPS_DRILL_TIMEOUT: { status: 504, retryable: true, summary: 'A restore drill did not finish within its time limit.' },
  SVC_OPS_DRILL_SETUP: { status: 500, retryable: true, summary: 'A restore drill could not restore the backup into its private copy (retried after five minutes).' },
  SVC_OPS_DRILL_CONFIG: { status: 500, retryable: false, summary: 'The restore drill configuration is invalid (SVC_RESTORE_DRILL_INTERVAL_MS, _TIMEOUT_MS, _CHECKS or _SECRETS).' },
  SVC_OPS_DRILL_FAILED: { status: 500, retryable: false, summary: 'A restore drill booted the restored copy but the application or one of its loopback checks failed.' },
});

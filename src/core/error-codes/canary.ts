import { defineCodes } from './define.js';

/** Canary rollouts (spec 002): rejections before a canary starts and the reasons a running one fails. */
export const canaryCodes = defineCodes({
  SVC_CANARY_PENDING_MIGRATIONS: { status: 409, retryable: false, summary: 'A canary needs a code-only deploy: the candidate has pending migrations while a baseline release is running.', hint: 'Deploy the migration without --canary (or without a canary policy) first.' },
  SVC_CANARY_RECOVERY_ENABLED: { status: 409, retryable: false, summary: 'Canary rollouts are refused while point-in-time recovery is enabled: a candidate would be a second writer to the journaled database (spec 002 rule 2); the canary failed closed before the baseline was touched.', hint: 'Deploy without --canary and without a canary policy in svc.deploy.json.' },
  SVC_CANARY_PROVIDER_UNSUPPORTED: { status: 409, retryable: false, summary: 'Canary rollouts are not supported for provider-managed generations; the canary failed closed.' },
  SVC_CANARY_CRITERIA_FAILED: { status: 409, retryable: false, summary: 'A canary stage missed its criteria (traffic, sample count, error rate or p95); the prior release keeps serving.' },
  SVC_CANARY_CANDIDATE_LOST: { status: 409, retryable: false, summary: 'The canary candidate exited or stopped answering its health route; the prior release keeps serving.' },
  SVC_CANARY_AUTHORITY_LOST: { status: 409, retryable: false, summary: 'The canary lost its project lock or deployment authority; the prior release keeps serving.' },
  SVC_CANARY_INTERRUPTED: { status: 409, retryable: false, summary: 'The control plane restarted during a canary; the prior release was retained.' },
});

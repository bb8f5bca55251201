import { defineCodes } from './define.js';

/** Canary rollouts: rejections before a canary starts and the reasons a running one fails. */
export const canaryCodes = defineCodes({
  SVC_CANARY_PENDING_MIGRATIONS: {
    status: 409,
    retryable: false,
    summary: 'A canary needs a code-only deploy: the candidate has pending migrations while a baseline release is running.',
    hint: 'Deploy the migration without --canary (or without a canary policy) first.',
  },
  SVC_CANARY_NO_BASELINE: {
    status: 409,
    retryable: false,
    summary:
      'A canary on a runner node needs a running baseline of another release to start beside; the node runs none (the project is stopped, its app is down, or the candidate is the running release).',
    hint: 'Deploy without --canary (or without a canary policy), or start the project first and run the canary again.',
  },
  SVC_CANARY_RECOVERY_ENABLED: {
    status: 409,
    retryable: false,
    summary:
      'Canary rollouts are refused while point-in-time recovery is enabled: a candidate would be a second writer to the journaled database, breaking the recovery single-writer contract; the canary failed closed before the baseline was touched.',
    hint: 'Deploy without --canary and without a canary policy in svc.deploy.json.',
  },
  SVC_CANARY_PROVIDER_UNSUPPORTED: {
    status: 409,
    retryable: false,
    summary: 'Canary rollouts are not supported for provider-managed generations; the canary failed closed.',
    hint: 'Deploy without --canary and without a canary policy in svc.deploy.json for projects placed on a runner node.',
  },
  SVC_CANARY_CRITERIA_FAILED: {
    status: 409,
    retryable: false,
    summary: 'A canary stage missed its criteria (traffic, sample count, error rate or p95); the prior release keeps serving.',
    hint: "See the failing stage with `svc canary` and the candidate's errors with `svc logs`, fix them, then deploy again.",
  },
  SVC_CANARY_CANDIDATE_LOST: {
    status: 409,
    retryable: false,
    summary: 'The canary candidate exited or stopped answering its health route; the prior release keeps serving.',
    hint: 'Check why the candidate stopped with `svc logs --release <id>`, fix it, then deploy again.',
  },
  SVC_CANARY_AUTHORITY_LOST: {
    status: 409,
    retryable: false,
    summary: 'The canary lost its project lock or deployment authority; the prior release keeps serving.',
    hint: 'Run the deploy again once no other deploy, rollback or backup holds the project.',
  },
  SVC_CANARY_INTERRUPTED: {
    status: 409,
    retryable: false,
    summary: 'The control plane restarted during a canary; the prior release was retained.',
    hint: 'Run `svc deploy --canary` again.',
  },
});

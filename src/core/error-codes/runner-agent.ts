import { defineCodes } from './define.js';

/** Codes of the `svc-runner agent` node agent (runner/agent): control-plane transport, enrollment, leases. */
export const runnerAgentCodes = defineCodes({
  SVC_RUNNER_CONTROL_UNREACHABLE: {
    status: 503,
    retryable: true,
    summary: 'The runner could not reach the control plane after its retries (network failure, 408, 425, 429 or 5xx).',
    hint: 'Check SVC_CONTROL_URL and that the control plane is up; the agent keeps retrying.',
  },
  SVC_RUNNER_CONTROL_REJECTED: {
    status: 502,
    retryable: false,
    summary: 'The control plane refused a runner request, answered with a redirect, or sent a response that does not match the node contract.',
    hint: "Check that SVC_CONTROL_URL is the control plane's own https:// origin and that runner and control plane run the same svc version.",
  },
  SVC_RUNNER_ENROLL_FAILED: {
    status: 401,
    retryable: false,
    summary: 'Enrollment with SVC_RUNNER_REGISTRATION_TOKEN was refused (unknown, used or expired token, or a node id already enrolled).',
    hint: 'Ask a platform admin for a new registration token.',
  },
  SVC_RUNNER_LEASE_LOST: {
    status: 409,
    retryable: true,
    summary: 'The node lost the lease of an operation (renewal refused or not confirmed before it expired); the running reconcile was aborted.',
    hint: 'Nothing to do: the operation goes to the newest holder; if it repeats, check the network between the node and the control plane.',
  },
  SVC_RUNNER_TIMEOUT: {
    status: 504,
    retryable: true,
    summary: 'A reconcile ran longer than SVC_RUNNER_TIMEOUT_MS and was aborted.',
    hint: 'Raise SVC_RUNNER_TIMEOUT_MS on the runner, or find what makes the app slow to start with `svc logs`.',
  },
  SVC_RUNNER_ARTIFACT_TOO_LARGE: {
    status: 413,
    retryable: false,
    summary: 'A release artifact is larger than SVC_RUNNER_MAX_ARTIFACT_BYTES; the download was stopped there.',
    hint: 'Raise SVC_RUNNER_MAX_ARTIFACT_BYTES on the runner, or make the artifact smaller.',
  },
});

import { defineCodes } from './define.js';

/** Codes of the container runner, the provider contract and its HTTP bridge. */
export const runnerCodes = defineCodes({
  SVC_CONTAINER_UNAVAILABLE: { status: 503, retryable: false, summary: 'podman (or its OCI runtime) is not usable on this host.', hint: 'Check `podman --runtime runc info`.' },
  SVC_CONTAINER_IMAGE_MISSING: { status: 503, retryable: false, summary: 'The container image named by SVC_CONTAINER_IMAGE does not exist locally.', hint: 'Build it with `npm run build:image`.' },
  SVC_CONTAINER_INVALID_SPEC: { status: 400, retryable: false, summary: 'A container launch was refused: a path, user or address broke a hardening rule.' },
  SVC_RUNNER_CONFIG: { status: 400, retryable: false, summary: 'The runner configuration (SVC_RUNNER, SVC_CONTAINER_*, SVC_PROVIDER_*) is invalid.' },
  SVC_PROVIDER_STALE_FENCE: { status: 409, retryable: false, summary: 'The provider already accepted a newer fence or generation for this project; older work is rejected.' },
  SVC_PROVIDER_REJECTED: { status: 400, retryable: false, summary: 'The provider bridge rejected the request (authentication, headers or artifact).' },
  SVC_PROVIDER_FAILED: { status: 502, retryable: true, summary: 'The provider could not converge the project; details are only in operator telemetry.' },
  SVC_PROVIDER_UNREACHABLE: { status: 503, retryable: true, summary: 'The provider bridge could not be reached after retries.' },
  SVC_PROVIDER_ABORTED: { status: 499, retryable: true, summary: 'The reconcile was aborted before it finished.' },
  SVC_PROVIDER_FENCE_UNRESOLVED: { status: 503, retryable: true, summary: 'A runtime fence of an earlier provider process is unresolved (its lease has not expired or its cleanup is not verified); no new writer starts for the project.', hint: 'Retry after the lease (at most 30 s); if it persists, check that the recorded process group or container is gone.' },
});

import { defineCodes } from './define.js';

/** Codes of the container runner, the provider contract and its HTTP bridge. */
export const runnerCodes = defineCodes({
  SVC_CONTAINER_UNAVAILABLE: {
    status: 503,
    retryable: false,
    summary: 'podman (or its OCI runtime) is not usable on this host.',
    hint: 'Check `podman --runtime runc info`.',
  },
  SVC_SWARM_UNAVAILABLE: {
    status: 503,
    retryable: true,
    summary: 'The Docker engine of the swarm driver is not reachable, or it is not a swarm manager.',
    hint: 'Check that dockerd runs and answers on the configured socket (`docker -H <host> info`) and that this node is a swarm manager (`docker swarm init` or join as a manager).',
  },
  SVC_SWARM_REQUEST_FAILED: {
    status: 502,
    retryable: false,
    summary: 'The Docker engine refused a swarm request (the message carries its status and answer).',
    hint: "Read the engine's message: a name conflict, an object that no longer exists or an invalid spec; `docker -H <host> service ps --no-trunc <service>` shows task errors.",
  },
  SVC_CONTAINER_IMAGE_MISSING: {
    status: 503,
    retryable: false,
    summary: 'The container image named by SVC_CONTAINER_IMAGE does not exist locally.',
    hint: 'Build it with `npm run build:image`.',
  },
  SVC_CONTAINER_INVALID_SPEC: {
    status: 400,
    retryable: false,
    summary: 'A container launch was refused: a path, user or address broke a hardening rule.',
    hint: 'Fix the container settings named in the message (SVC_CONTAINER_USER must be a numeric non-root uid:gid; see docs/container-runner.md).',
  },
  SVC_RUNNER_CONFIG: {
    status: 400,
    retryable: false,
    configuration: 'svc-runner',
    summary: 'The runner configuration (SVC_RUNNER, SVC_CONTAINER_*, SVC_PROVIDER_*) is invalid.',
    hint: 'Fix the setting named in the message (see docs/container-runner.md or `svc-runner --help`).',
  },
  SVC_PROVIDER_STALE_FENCE: {
    status: 409,
    retryable: false,
    summary: 'The provider already accepted a newer fence or generation for this project; older work is rejected.',
    hint: 'Nothing to do: newer work for the project supersedes this request.',
  },
  SVC_PROVIDER_REJECTED: {
    status: 400,
    retryable: false,
    summary: 'The provider bridge rejected the request (authentication, headers or artifact).',
    hint: 'Check that SVC_PROVIDER_TOKEN is the same on both sides and that SVC_PROVIDER_URL does not redirect.',
  },
  SVC_PROVIDER_FAILED: {
    status: 502,
    retryable: false,
    summary:
      'The provider answered that it could not converge the project (for example the release failed its health check); final for this operation; details are only in operator telemetry.',
    hint: "Look at the provider's telemetry and `svc logs` for the cause, fix it, then deploy (or roll back) again.",
  },
  SVC_PROVIDER_REDIRECT_REFUSED: {
    status: 502,
    retryable: false,
    summary: 'The provider bridge answered with a redirect; the bridge never follows redirects (a configuration error, not retried).',
    hint: "Set SVC_PROVIDER_URL on the runner to the bridge's own address (no redirecting proxy, https:// off loopback).",
  },
  SVC_PROVIDER_UNREACHABLE: {
    status: 503,
    retryable: true,
    summary:
      'No answer from the provider bridge after retries (the provider may or may not have applied the request); the control plane leases the operation again.',
    hint: 'Check SVC_PROVIDER_URL and that `svc-runner provider` is running there; the operation is retried with the same fence until it is observed or SVC_NODE_OPERATION_MAX_ATTEMPTS is reached.',
  },
  SVC_PROVIDER_ABORTED: {
    status: 499,
    retryable: true,
    summary: 'The reconcile was aborted before it finished.',
    hint: 'Retry the deploy; the reconcile was cancelled (shutdown, timeout or lost lease).',
  },
  SVC_PROVIDER_FENCE_UNRESOLVED: {
    status: 503,
    retryable: true,
    summary:
      'A runtime fence of an earlier provider process is unresolved (its lease has not expired or its cleanup is not verified); no new writer starts for the project.',
    hint: 'Retry after the lease (at most 30 s); if it persists, check that the recorded process group or container is gone.',
  },
});

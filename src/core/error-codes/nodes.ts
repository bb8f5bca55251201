import { defineCodes } from './define.js';

/** Runner nodes on the control-plane side (src/nodes): enrollment, node credentials, placement, generations, leases. */
export const nodesCodes = defineCodes({
  SVC_NODE_TOKEN_INVALID: {
    status: 401,
    retryable: false,
    summary: 'The registration token is unknown (enrollment needs `Authorization: Bearer <registration token>`).',
    hint: 'Create one with `svc nodes token` as the platform admin.',
  },
  SVC_NODE_TOKEN_USED: {
    status: 401,
    retryable: false,
    summary: 'The registration token was already used; each token enrolls exactly one node.',
    hint: 'Create a new token with `svc nodes token`.',
  },
  SVC_NODE_TOKEN_EXPIRED: {
    status: 401,
    retryable: false,
    summary: 'The registration token expired before it was used.',
    hint: 'Create a new token with `svc nodes token`.',
  },
  SVC_NODE_ALREADY_ENROLLED: {
    status: 409,
    retryable: false,
    summary: 'A node with this id is already enrolled (the token was not consumed).',
    hint: 'Keep the existing credentials file, or choose another SVC_RUNNER_NODE_ID.',
  },
  SVC_NODE_CREDENTIAL_INVALID: {
    status: 401,
    retryable: false,
    summary: 'Node routes need `Authorization: Bearer <node credential>` of an enrolled node; account, CLI and bridge tokens are not accepted.',
    hint: "Check the runner's credentials file (SVC_RUNNER_CREDENTIALS); if it was lost, enroll the node again with a registration token from `svc nodes token`.",
  },
  SVC_NODE_NO_FIT: {
    status: 409,
    retryable: false,
    summary: 'No ready node matches the placement (region, labels, remaining capacity).',
    hint: 'Check `svc nodes list`: enroll a node, raise its capacity or relax --region/--label.',
  },
  SVC_NODE_PLACEMENT_LOCKED: {
    status: 409,
    retryable: false,
    summary: 'The project is placed on another node and has a running desired state or unfinished operations; moving a placed project is not supported.',
    hint: 'Run `svc stop <project>` and wait until the stop is observed, then place it again.',
  },
  SVC_NODE_PROJECT_HOSTED_LOCALLY: {
    status: 409,
    retryable: false,
    summary: 'The project already has an active release on the built-in supervisor; enabling nodes does not relocate hosted projects.',
    hint: 'Place new projects before their first deploy.',
  },
  SVC_NODE_NOT_PLACED: {
    status: 409,
    retryable: false,
    summary: 'The project is not placed on a runner node.',
    hint: 'Place it first: `svc place <project>`.',
  },
  SVC_NODE_OPERATION_NOT_FOUND: {
    status: 404,
    retryable: false,
    summary: 'No such operation for this node.',
    hint: 'Nothing to retry: let the agent lease its next operation.',
  },
  SVC_NODE_LEASE_LOST: {
    status: 409,
    retryable: false,
    summary: 'The lease of the operation expired or was handed to a newer holder; stop the work (a newer fence supersedes it).',
    hint: 'Stop the work; the agent picks up the newer operation on its next lease.',
  },
  SVC_NODE_ARTIFACT_UNAVAILABLE: {
    status: 409,
    retryable: false,
    summary: 'The control plane holds no artifact bytes for this release (only releases uploaded while the project was placed can run on a node).',
    hint: 'Upload the release again with `svc deploy`.',
  },
  SVC_NODE_OBSERVATION_MISMATCH: {
    status: 400,
    retryable: false,
    summary: 'The observed result does not match the operation (release or state differ from the desired generation).',
    hint: 'Report the release and state of the leased operation; check that runner and control plane run the same svc version.',
  },
  SVC_NODE_GENERATION_SUPERSEDED: {
    status: 409,
    retryable: false,
    summary: 'A newer desired generation replaced this one before a node observed it.',
    hint: 'Nothing to do: the newer generation is being applied; follow it with `svc generations <project>`.',
  },
  SVC_NODE_RESTORE_UNSUPPORTED: {
    status: 409,
    retryable: false,
    summary: "The runner node's provider (behind SVC_PROVIDER_URL) predates data-restoring rollbacks and cannot run --restore-data.",
    hint: 'Upgrade the provider (`svc-runner provider`) on that node, or roll back without --restore-data (code only).',
  },
});

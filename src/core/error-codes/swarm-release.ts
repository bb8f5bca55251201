import { defineCodes } from './define.js';

/** Codes of the release endpoint swarm tasks fetch releases and report jobs through, and of the task entrypoint. */
export const swarmReleaseCodes = defineCodes({
  SVC_RELEASE_CREDENTIAL_INVALID: {
    status: 401,
    retryable: false,
    summary: 'The release endpoint got no credential, a malformed one, or one this control plane did not sign.',
    hint: "The task's svc.credential secret does not belong to this control plane (its key changed, or the secret was replaced): deploy the project again so the driver mints a new credential.",
  },
  SVC_RELEASE_CREDENTIAL_SCOPE: {
    status: 403,
    retryable: false,
    summary: 'The credential is valid but names another release or job than the one requested.',
    hint: 'A task may fetch only its own release and report only its own job; check that the service spec pairs SVC_ARTIFACT_URL with the credential minted for the same release.',
  },
  SVC_RELEASE_CREDENTIAL_EXPIRED: {
    status: 401,
    retryable: false,
    summary: 'The release credential has expired.',
    hint: 'Deploy or restart the project so the driver mints a fresh credential into a new service generation.',
  },
  SVC_RELEASE_CREDENTIAL_REVOKED: {
    status: 401,
    retryable: false,
    summary: 'The credential belongs to a release generation or job the driver replaced, removed or finished.',
    hint: 'Nothing to do for a task of a replaced generation (swarm stops it); if the current release is refused, deploy the project again.',
  },
  SVC_RELEASE_ENDPOINT_UNKNOWN: {
    status: 404,
    retryable: false,
    summary: 'The release endpoint has no such release artifact, job, job input or job output.',
    hint: 'The release or job was removed (release cleanup, a finished job); a task of it cannot run again: deploy the project or rerun the operation.',
  },
  SVC_RELEASE_ENDPOINT_UNREACHABLE: {
    status: 503,
    retryable: true,
    summary: 'The swarm task could not reach the release endpoint of the control plane within its retry window.',
    hint: 'Check that the control plane runs and listens on the address of SVC_ARTIFACT_URL and that the swarm node can reach it; swarm restarts the task.',
  },
  SVC_SWARM_TASK_CONFIG: {
    status: 500,
    retryable: false,
    summary: 'A swarm task lacks an environment value or secret file its entrypoint needs, or one is malformed.',
    hint: 'The service spec was not built by the swarm driver of this svc version: update the platform image and the control plane together, then deploy again.',
  },
});

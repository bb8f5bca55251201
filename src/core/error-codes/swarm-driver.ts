import { defineCodes } from './define.js';

/** Codes of the Docker Swarm release driver (SVC_DRIVER=swarm): its settings, kept artifacts and jobs. */
export const swarmDriverCodes = defineCodes({
  SVC_SWARM_CONFIG: {
    status: 400,
    retryable: false,
    configuration: 'svc-platform',
    summary: 'The swarm driver settings (SVC_DRIVER, DOCKER_HOST, SVC_SWARM_*) are invalid, or the release endpoint cannot listen where they say.',
    hint: 'Fix the setting named in the message (see docs/swarm.md); svc does not start on another driver instead.',
  },
  SVC_SWARM_ARTIFACT_MISSING: {
    status: 409,
    retryable: false,
    summary: "The release's original artifact is not kept beside it, so swarm tasks cannot fetch it (it was staged before the swarm driver ran this project).",
    hint: 'Deploy the release again (upload the same artifact): the swarm driver keeps its bytes from then on.',
  },
  SVC_SWARM_JOB_FAILED: {
    status: 500,
    retryable: false,
    summary: 'A swarm job task (migration, snapshot, restore or check) ended without reporting a result.',
    hint: "Read the task's last log lines in the message (or `docker service logs` of the job while it exists) and the release endpoint's reachability from the node, fix the cause, then run the operation again.",
  },
  SVC_SWARM_IMAGE_MISSING: {
    status: 409,
    retryable: false,
    summary: "The swarm node chosen for the project does not have svc's base image, so the engine rejected its task (images are local, never pulled).",
    hint: 'Load the image on that node (`docker save <image id>` on the manager, `docker load` on the node; docs/swarm.md), then deploy again: the project stays on that node, where its volume is.',
  },
});

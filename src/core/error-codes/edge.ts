import { defineCodes } from './define.js';

/** The ingress process (data plane) in front of the control plane. */
export const edgeCodes = defineCodes({
  SVC_CONTROL_PLANE_UNAVAILABLE: {
    status: 503,
    retryable: true,
    summary: 'The request was held while the svc control plane was down (SVC_HOLD_REQUESTS_MS) and it did not come back; nothing was delivered.',
    hint: 'Retry after the Retry-After seconds; an operator starts the control plane again with `svc-platform` (its log says why it stopped).',
  },
  SVC_CONTROL_PLANE_CONNECTION_LOST: {
    status: 502,
    retryable: false,
    summary: 'The svc control plane went away after the request was delivered; it may have been processed, so it was not retried.',
    hint: 'Check whether the operation took effect (e.g. `svc releases`) before sending it again.',
  },
  SVC_INGRESS_START_FAILED: {
    status: 500,
    retryable: false,
    summary: 'The ingress process that owns the public port could not start (address in use, socket path too long, or it exited).',
    hint: 'Free the address given in SVC_LISTEN / --listen (or choose another), or read <data>/run/ingress.log.',
  },
  SVC_PLATFORM_ALREADY_RUNNING: {
    status: 409,
    retryable: false,
    summary: 'Another svc control plane already answers on this data directory’s control socket.',
    hint: 'Stop the running svc-platform first (SIGTERM keeps apps and ingress running, SIGINT stops everything), or use another SVC_DATA_DIR.',
  },
});

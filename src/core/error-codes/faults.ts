import { defineCodes } from './define.js';

/** Codes of faults in how a client talks to svc (stalled or abandoned transfers). */
export const faultCodes = defineCodes({
  SVC_UPLOAD_STALLED: {
    status: 408,
    retryable: true,
    summary:
      'The upload body stopped arriving for longer than the idle timeout (SVC_UPLOAD_IDLE_TIMEOUT_MS, default 30 s); the upload was aborted and the project lock released.',
    hint: 'Check the network between the client and svc, then retry the upload with the same Idempotency-Key.',
  },
});

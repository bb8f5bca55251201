// What the ingress proxy answers by itself (error bodies, retry hints, the bound on held requests) and
// how it classes requests (which may be retried on a fresh connection, which open live-query streams).

function errorBody(code: string, message: string): Buffer {
  return Buffer.from(JSON.stringify({ error: { code, message } }));
}
export const UNAVAILABLE = errorBody('SVC_INGRESS_UPSTREAM_UNAVAILABLE', "The project's release did not answer the request.");
export const NO_RELEASE = errorBody('SVC_INGRESS_NO_ACTIVE_RELEASE', 'This project has no active release.');
export const HOLD_EXPIRED = errorBody(
  'SVC_INGRESS_NO_ACTIVE_RELEASE',
  'This project is being released or restored and did not come back in time; retry shortly.',
);
/** How long a client is told to wait after a hold ran out. */
export const RETRY_AFTER_SECONDS = 5;
/** Held requests per project beyond which new ones are answered at once (bounded memory and sockets). */
export const MAX_HELD_PER_PROJECT = 2_000;
// Socket failures on a reused keep-alive connection that are safe to retry for body-less requests.
export const RETRYABLE = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
/** Times one request may be sent on after the replaced target it waited for was stopped (each needs a new switch). */
export const MAX_REROUTES = 3;
export const SAFE_METHODS = new Set<string>(['GET', 'HEAD', 'OPTIONS']);

export class ClientGoneError extends Error {
  constructor() {
    super('client closed the request');
    this.name = 'ClientGoneError';
  }
}

// The svc runtime serves live queries as server-sent events under its default prefix; an app that moved
// the prefix still has its streams counted as in-flight requests, just not as live-query streams.
const LIVE_QUERY_PATH = '/__svc/live/';

/** Whether a request opens a live-query stream of the svc runtime. Hot path: one method and one prefix check. */
export function isLiveQueryStream(req: { method?: string | undefined; url?: string | undefined }): boolean {
  return req.method === 'GET' && req.url !== undefined && req.url.startsWith(LIVE_QUERY_PATH);
}

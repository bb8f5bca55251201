// Errors of the live layer. src/runtime stands alone, so it has its own error class and codes.

/** Stable codes of the live layer (documented in docs/runtime-live.md). */
const liveErrorCodes = {
  SVC_LIVE_PAYLOAD_TOO_LARGE: 'snapshot exceeds the maximum event payload size',
  SVC_LIVE_SLOW_CONSUMER: 'the client did not read fast enough and was disconnected',
  SVC_LIVE_TOO_MANY_CONNECTIONS: 'the live connection limit is reached',
  SVC_LIVE_SESSION_REVOKED: 'the session is no longer valid',
  SVC_LIVE_BAD_ARGS: 'live arguments are not valid JSON or too large',
  SVC_LIVE_QUERY_FAILED: 'the query failed',
  SVC_LIVE_SHUTDOWN: 'the server is shutting down',
} as const;

/** One of the live layer's error codes. */
export type LiveErrorCode = keyof typeof liveErrorCodes;

/** An error raised by the live layer with a stable code and HTTP status. */
export class LiveError extends Error {
  readonly code: LiveErrorCode;
  readonly status: number;
  constructor(code: LiveErrorCode, status: number, message?: string) {
    super(message ?? liveErrorCodes[code]);
    this.name = 'LiveError';
    this.code = code;
    this.status = status;
  }
}

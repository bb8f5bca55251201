import { defineCodes } from './define.js';

/** Codes shared by every feature: generic request, auth and server failures. */
export const generalCodes = defineCodes({
  SVC_INTERNAL: { status: 500, retryable: false, summary: 'Internal error (details are redacted from the response and logged on the server).' },
  SVC_UNAVAILABLE: { status: 503, retryable: true, summary: 'The service is temporarily unavailable.', hint: 'Retry shortly.' },
  SVC_BAD_REQUEST: { status: 400, retryable: false, summary: 'The request is malformed.' },
  SVC_VALIDATION: { status: 400, retryable: false, summary: 'A field failed validation; the message names the field and the rule.' },
  SVC_MALFORMED_JSON: { status: 400, retryable: false, summary: 'The request body is not valid JSON.' },
  SVC_PAYLOAD_TOO_LARGE: { status: 413, retryable: false, summary: 'The request body exceeds the size limit.' },
  SVC_UNSUPPORTED_MEDIA_TYPE: { status: 415, retryable: false, summary: 'The request has an unsupported Content-Type.' },
  SVC_NOT_FOUND: { status: 404, retryable: false, summary: 'The resource does not exist or is not visible to you.' },
  SVC_METHOD_NOT_ALLOWED: { status: 405, retryable: false, summary: 'The method is not allowed on this route.' },
  SVC_CONFLICT: { status: 409, retryable: false, summary: 'The request conflicts with the current state.' },
  SVC_RATE_LIMITED: { status: 429, retryable: true, summary: 'Too many requests; slow down.', hint: 'Wait and retry.' },
  SVC_TIMEOUT: { status: 504, retryable: true, summary: 'The operation timed out.' },
  SVC_IO: { status: 500, retryable: true, summary: 'A filesystem operation failed.' },
  SVC_DISK_FULL: { status: 507, retryable: false, summary: 'Not enough disk space to complete the operation; nothing was half-written.', hint: 'Free disk space and retry.' },
  SVC_USAGE: { status: 400, retryable: false, summary: 'The command was called with invalid arguments or flags.', hint: 'Run the command with --help.' },
  SVC_COMMAND_FAILED: { status: 400, retryable: false, summary: 'A local command (such as build.command) exited with a non-zero status.' },
  SVC_COMMAND_NOT_FOUND: { status: 400, retryable: false, summary: 'A local command could not be started (not found or not executable).' },
  SVC_NOT_AVAILABLE: { status: 501, retryable: false, summary: 'This part of svc is not available yet in this version.' },
});

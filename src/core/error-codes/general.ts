import { defineCodes } from './define.js';

/** Codes shared by every feature: generic request, auth and server failures. */
export const generalCodes = defineCodes({
  SVC_INTERNAL: {
    status: 500,
    retryable: false,
    summary: 'Internal error (details are redacted from the response and logged on the server).',
    hint: 'Retry; if it persists, give the operator the time of the failure so they can find the logged error in the server log.',
  },
  SVC_UNAVAILABLE: { status: 503, retryable: true, summary: 'The service is temporarily unavailable.', hint: 'Retry shortly.' },
  SVC_BAD_REQUEST: {
    status: 400,
    retryable: false,
    summary: 'The request is malformed.',
    hint: 'Fix the request as the message describes; the svc CLI and console always send well-formed requests, so check the client or its version.',
  },
  SVC_VALIDATION: {
    status: 400,
    retryable: false,
    summary: 'A field failed validation; the message names the field and the rule.',
    hint: 'Correct the field named in the message and send the request again.',
  },
  SVC_MALFORMED_JSON: {
    status: 400,
    retryable: false,
    summary: 'The request body is not valid JSON.',
    hint: 'Send a valid JSON body with Content-Type: application/json.',
  },
  SVC_PAYLOAD_TOO_LARGE: {
    status: 413,
    retryable: false,
    summary: 'The request body exceeds the size limit.',
    hint: 'Send a smaller body; the operator can raise SVC_BODY_LIMIT_BYTES for JSON requests.',
  },
  SVC_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    retryable: false,
    summary: 'The request has an unsupported Content-Type.',
    hint: 'Send the Content-Type the route expects (application/json, or application/vnd.svc.deploy+gzip for uploads).',
  },
  SVC_NOT_FOUND: {
    status: 404,
    retryable: false,
    summary: 'The resource does not exist or is not visible to you.',
    hint: 'Check the id or path; if the resource belongs to an organization, ask its owner to add you.',
  },
  SVC_METHOD_NOT_ALLOWED: {
    status: 405,
    retryable: false,
    summary: 'The method is not allowed on this route.',
    hint: 'Use the method listed for this route in docs/api.md.',
  },
  SVC_CONFLICT: {
    status: 409,
    retryable: false,
    summary: 'The request conflicts with the current state.',
    hint: 'Reload the current state (the console page or the matching `svc` list command) and retry the change against it.',
  },
  SVC_RATE_LIMITED: { status: 429, retryable: true, summary: 'Too many requests; slow down.', hint: 'Wait and retry.' },
  SVC_TIMEOUT: {
    status: 504,
    retryable: true,
    summary: 'The operation timed out.',
    hint: 'Retry; if it keeps timing out, check the network to the server and that the server is responsive.',
  },
  SVC_IO: {
    status: 500,
    retryable: true,
    summary: 'A filesystem operation failed.',
    hint: 'Check free disk space and the permissions of the path named in the message, then retry.',
  },
  SVC_DISK_FULL: {
    status: 507,
    retryable: false,
    summary: 'Not enough disk space to complete the operation; nothing was half-written.',
    hint: 'Free disk space and retry.',
  },
  SVC_USAGE: { status: 400, retryable: false, summary: 'The command was called with invalid arguments or flags.', hint: 'Run the command with --help.' },
  SVC_COMMAND_FAILED: {
    status: 400,
    retryable: false,
    summary: 'A local command (such as build.command) exited with a non-zero status.',
    hint: 'Run build.command yourself in the app directory, fix the error it prints, then run `svc deploy` again (or use --no-build for prebuilt files).',
  },
  SVC_COMMAND_NOT_FOUND: {
    status: 400,
    retryable: false,
    summary: 'A local command could not be started (not found or not executable).',
    hint: 'Install the program (for example `npm install` for tools in node_modules/.bin) or fix build.command in svc.deploy.json.',
  },
  SVC_NOT_AVAILABLE: {
    status: 501,
    retryable: false,
    summary: 'This part of svc is not available yet in this version.',
    hint: 'Upgrade svc to a version that has this feature; `svc --help` lists what this version supports.',
  },
});

import { defineCodes } from './define.js';

/** Codes raised by the CLI's remote side: server URLs, stored credentials and the HTTP client. */
export const cliRemoteCodes = defineCodes({
  SVC_INSECURE_SERVER_URL: {
    status: 400,
    retryable: false,
    summary: 'The server URL is not HTTPS and its host is not loopback; the CLI refuses to send credentials over it.',
    hint: 'Use an https:// URL, or http://127.0.0.1 / http://localhost for local development.',
  },
  SVC_INVALID_SERVER_URL: {
    status: 400,
    retryable: false,
    summary: 'The server URL cannot be parsed or has a path, query or credentials.',
    hint: 'Pass a URL such as https://svc.example.com.',
  },
  SVC_NOT_LOGGED_IN: {
    status: 401,
    retryable: false,
    summary: 'No stored login and no SVC_TOKEN; the command needs credentials.',
    hint: 'Run `svc login` or set SVC_TOKEN.',
  },
  SVC_CLI_CREDENTIALS_INVALID: {
    status: 400,
    retryable: false,
    summary: 'The CLI config file (~/.svc/config.json) is not valid JSON of the expected shape.',
    hint: 'Fix or delete ~/.svc/config.json, then run `svc login`.',
  },
  SVC_NETWORK: {
    status: 503,
    retryable: true,
    summary: 'The server could not be reached (connection refused, reset or DNS failure).',
    hint: 'Check the server URL and that the server is running.',
  },
  SVC_REMOTE_ERROR: {
    status: 502,
    retryable: false,
    summary: 'The server returned an error this CLI does not know (the message carries the original code).',
    hint: "Upgrade the svc CLI to the server's version so it knows this code, and see the original code in the message.",
  },
  SVC_BAD_RESPONSE: {
    status: 502,
    retryable: false,
    summary: 'The server response did not match the expected schema (version mismatch?).',
    hint: 'Upgrade the CLI or the server so their versions match.',
  },
});

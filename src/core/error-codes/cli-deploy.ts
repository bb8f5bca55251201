import { defineCodes } from './define.js';

/** Codes raised by the CLI's release commands: deploy (upload), releases, rollback and logs. */
export const cliDeployCodes = defineCodes({
  SVC_CLI_PROJECT_LINK_INVALID: {
    status: 400,
    retryable: false,
    summary: 'The app directory link file (.svc/project.json) is not valid JSON of the expected shape.',
    hint: 'Delete .svc/project.json and run `svc deploy` again to link (or create) a project.',
  },
  SVC_CLI_PROJECT_NOT_LINKED: {
    status: 400,
    retryable: false,
    summary: 'This directory is not linked to a project and no --project was given.',
    hint: 'Run `svc deploy` here first (it creates and links a project), or pass --project <id-or-slug>.',
  },
  SVC_CLI_UPLOAD_OUTCOME_UNKNOWN: {
    status: 503,
    retryable: true,
    summary: 'The upload may or may not have created a release (the connection failed, timed out or the server answered 5xx).',
    hint: 'Run the same `svc deploy` again within 24 hours: it reuses the idempotency key kept in .svc/attempts/, so no second release is created.',
  },
});

import { defineCodes } from './define.js';

/** Codes raised by the CLI's offline commands: create, build, doctor, deploy --dry-run, inspect. */
export const cliCodes = defineCodes({
  SVC_CLI_INVALID_NAME: {
    status: 400,
    retryable: false,
    summary: 'The app name is not usable as a directory and package name.',
    hint: 'Use lowercase letters, digits and dashes, starting with a letter or digit (e.g. my-app).',
  },
  SVC_CLI_TARGET_EXISTS: {
    status: 409,
    retryable: false,
    summary: 'The target directory already exists and is not empty; nothing was written.',
    hint: 'Pick another name or remove the directory first.',
  },
  SVC_CLI_BUILD_PATHS: {
    status: 400,
    retryable: false,
    summary: 'The build source is missing, or the source and output directories overlap.',
    hint: 'Run `svc build <src> <dist>` with an existing source directory and an output directory outside it.',
  },
  SVC_CLI_BUILD_UNSUPPORTED_FILE: {
    status: 400,
    retryable: false,
    summary: 'The build source contains a symbolic link or special file, which svc build does not copy.',
    hint: 'Replace the link with a regular file or directory.',
  },
  SVC_CLI_BUILD_TRANSFORM: {
    status: 400,
    retryable: false,
    summary: 'A TypeScript file could not be transpiled; the message names the file and line.',
    hint: 'Fix the syntax error and run the build again.',
  },
  SVC_CLI_DOCTOR_FAILED: {
    status: 400,
    retryable: false,
    summary: 'One or more `svc doctor` checks failed; each failed check says how to fix it.',
    hint: 'Fix the checks marked ✗ and run `svc doctor` again.',
  },
});

// Exit statuses of svc's programs for an error. The CLI derives its status from the code's kind and
// HTTP status (exitCodeFor); the two servers exit with their configuration status when a setting is
// invalid, so a service manager or script can tell "fix the settings" from "it crashed".
import { errorCodes } from './error-codes/index.js';
import type { ErrorCodeDefinition } from './error-codes/define.js';
import { exitCodeFor, isSvcError, SvcError, type ErrorCode } from './errors.js';

/** The status each server exits with for an invalid setting (2 mirrors usage errors; 64 is EX_USAGE). */
export const configurationExitStatus = { 'svc-platform': 2, 'svc-runner': 64 } as const;

function definitionOf(code: string): ErrorCodeDefinition | undefined {
  return (errorCodes as Record<string, ErrorCodeDefinition>)[code];
}

/** Whether an error reports an invalid start-up setting (a code marked `configuration` in the registry). */
export function isConfigurationError(error: unknown): boolean {
  return isSvcError(error) && definitionOf(error.code)?.configuration !== undefined;
}

/** How svc-platform ends when start-up fails: the configuration status for an invalid setting, else 1. */
export function platformStartExitStatus(error: unknown): number {
  return isConfigurationError(error) ? configurationExitStatus['svc-platform'] : 1;
}

/** How svc-runner ends on an error: 64 for usage and settings, 69 when a component is missing, else 1. */
export function runnerExitStatus(error: unknown): number {
  if (isSvcError(error, 'SVC_USAGE') || isConfigurationError(error)) return configurationExitStatus['svc-runner'];
  if (isSvcError(error, 'SVC_NOT_AVAILABLE')) return 69;
  return 1;
}

/**
 * The exit status the docs state for a code: the configuration status of the program whose setting
 * it is, else the CLI's. docs/errors.md shows it and the docs-drift test checks every "(exit N)".
 */
export function documentedExitStatus(code: ErrorCode): { status: number; program: 'svc' | 'svc-platform' | 'svc-runner' } {
  const program = definitionOf(code)?.configuration;
  if (program) return { status: configurationExitStatus[program], program };
  return { status: exitCodeFor(new SvcError(code)), program: 'svc' };
}

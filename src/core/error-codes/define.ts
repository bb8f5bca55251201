/** One registry entry: HTTP status, whether a retry may succeed, a one-line summary and a next-step hint. */
export interface ErrorCodeDefinition {
  readonly status: number;
  readonly retryable: boolean;
  readonly summary: string;
  /** What the user should do next (one concrete sentence); shown by the CLI and in docs/errors.md. Required. */
  readonly hint: string;
  /**
   * Set on codes for an invalid setting read at start-up: the program whose setting it is. Such errors
   * stop svc-platform and svc-runner with their configuration exit status (src/core/exit-status.ts).
   */
  readonly configuration?: 'svc-platform' | 'svc-runner';
}

/** Identity helper that keeps literal keys while checking every entry's shape and SVC_ prefix. */
export function defineCodes<const T extends Record<`SVC_${string}`, ErrorCodeDefinition>>(codes: T): T {
  return codes;
}

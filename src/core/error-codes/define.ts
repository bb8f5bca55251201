/** One registry entry: HTTP status, whether a retry may succeed, and a one-line summary for docs. */
export interface ErrorCodeDefinition {
  readonly status: number;
  readonly retryable: boolean;
  readonly summary: string;
  /** What the user should do next; shown by the CLI and in docs/errors.md. */
  readonly hint?: string;
}

/** Identity helper that keeps literal keys while checking every entry's shape and SVC_ prefix. */
export function defineCodes<const T extends Record<`SVC_${string}`, ErrorCodeDefinition>>(codes: T): T {
  return codes;
}

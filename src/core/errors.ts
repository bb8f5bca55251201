import { errorCodes, type ErrorCode } from './error-codes/index.js';

/** Whether retrying the same operation may succeed (the CLI and Action retry only these). */
export type ErrorKind = 'retryable' | 'fatal';

/** The one error type svc throws for anything a caller may see; `code` is stable, the message is not. */
export class SvcError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly kind: ErrorKind;
  /** Safe, structured details (never secrets) for logs and `--json` output. */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message?: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    const def = errorCodes[code];
    super(message ?? def.summary, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SvcError';
    this.code = code;
    this.status = def.status;
    this.kind = def.retryable ? 'retryable' : 'fatal';
    this.details = options?.details;
  }

  /** The wire shape used by every HTTP route: `{ error: { code, message } }`. */
  toBody(): { error: { code: ErrorCode; message: string; details?: Record<string, unknown> } } {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

/** Narrow an unknown thrown value to SvcError, optionally of one code. */
export function isSvcError(value: unknown, code?: ErrorCode): value is SvcError {
  return value instanceof SvcError && (code === undefined || value.code === code);
}

/**
 * Process exit code for an error, derived from its kind and status so scripts can branch on it:
 * 2 usage, 75 retryable (EX_TEMPFAIL), 65 bad input (EX_DATAERR), 77 not permitted (EX_NOPERM),
 * 66 not found (EX_NOINPUT), 73 conflict (EX_CANTCREAT), 70 internal (EX_SOFTWARE).
 */
export function exitCodeFor(error: unknown): number {
  if (!(error instanceof SvcError)) return 70;
  if (error.code === 'SVC_USAGE') return 2;
  if (error.kind === 'retryable') return 75;
  if (error.status === 401 || error.status === 403) return 77;
  if (error.status === 404) return 66;
  if (error.status === 409) return 73;
  if (error.status >= 400 && error.status < 500) return 65;
  return 70;
}

export { errorCodes, type ErrorCode };

// The runtime's own errors (it imports nothing from src/core). Every error carries a stable code and an
// HTTP status; the Fetch handler turns them into `{ error: { code, message } }` bodies.

/** Stable codes of the runtime, with their HTTP status. */
export const runtimeCodes = {
  SVC_RUNTIME_INVALID_ARGUMENTS: 400,
  SVC_RUNTIME_INVALID_DOCUMENT: 400,
  SVC_RUNTIME_INVALID_QUERY: 400,
  SVC_RUNTIME_MALFORMED_JSON: 400,
  SVC_RUNTIME_UNKNOWN_FUNCTION: 404,
  SVC_RUNTIME_UNKNOWN_TABLE: 400,
  SVC_RUNTIME_DOCUMENT_NOT_FOUND: 404,
  SVC_RUNTIME_CONFLICT: 409,
  SVC_RUNTIME_INVALID_OUTPUT: 500,
  SVC_RUNTIME_OUTPUT_TOO_LARGE: 500,
  SVC_RUNTIME_PAYLOAD_TOO_LARGE: 413,
  SVC_RUNTIME_UNAUTHENTICATED: 401,
  SVC_RUNTIME_CSRF: 403,
  SVC_RUNTIME_CROSS_SITE: 403,
  SVC_RUNTIME_READ_ONLY: 500,
  SVC_RUNTIME_SCHEMA: 500,
  SVC_RUNTIME_SCHEMA_MISMATCH: 500,
  SVC_RUNTIME_DATABASE: 500,
  SVC_RUNTIME_BUSY: 503,
  SVC_RUNTIME_METHOD_NOT_ALLOWED: 405,
  SVC_RUNTIME_NOT_FOUND: 404,
  SVC_RUNTIME_AUTH_INVALID_CREDENTIALS: 401,
  SVC_RUNTIME_AUTH_EMAIL_TAKEN: 409,
  SVC_RUNTIME_AUTH_SIGNUP_CLOSED: 403,
  SVC_RUNTIME_RATE_LIMITED: 429,
  SVC_RUNTIME_APP_ERROR: 400,
  SVC_RUNTIME_INTERNAL: 500,
  // Managed buckets (src/runtime/buckets; statuses follow tus 1.0 where it names one).
  SVC_BUCKET_DEFINITION: 500,
  SVC_BUCKET_CONTRACT_CHANGED: 500,
  SVC_BUCKET_CONFIG: 500,
  SVC_BUCKET_UNKNOWN: 404,
  SVC_BUCKET_NOT_FOUND: 404,
  SVC_BUCKET_UPLOAD_NOT_FOUND: 404,
  SVC_BUCKET_INVALID_KEY: 400,
  SVC_BUCKET_INVALID_REQUEST: 400,
  SVC_BUCKET_TOO_LARGE: 413,
  SVC_BUCKET_CHUNK_TOO_LARGE: 413,
  SVC_BUCKET_CHUNK_TOO_SMALL: 400,
  SVC_BUCKET_QUOTA_EXCEEDED: 413,
  SVC_BUCKET_OFFSET_MISMATCH: 409,
  SVC_BUCKET_UPLOAD_LOCKED: 423,
  SVC_BUCKET_LENGTH_MISMATCH: 400,
  SVC_BUCKET_CHECKSUM_MISMATCH: 460,
  SVC_BUCKET_TYPE_NOT_ALLOWED: 415,
  SVC_BUCKET_TYPE_MISMATCH: 415,
  SVC_BUCKET_IMAGE_INVALID: 422,
  SVC_BUCKET_PRECONDITION_FAILED: 412,
  SVC_BUCKET_TUS_VERSION: 412,
  SVC_BUCKET_CAPABILITY_INVALID: 403,
  SVC_BUCKET_CAPABILITY_EXPIRED: 403,
  SVC_BUCKET_FORBIDDEN: 403,
  SVC_BUCKET_INTEGRITY: 500,
  SVC_BUCKET_CATALOG_UNSAFE: 500,
  SVC_BUCKET_STORAGE: 502,
} as const;

export type RuntimeErrorCode = keyof typeof runtimeCodes;

/** An error with a stable code; the message is for humans and may change. */
export class RuntimeError extends Error {
  readonly code: RuntimeErrorCode;
  readonly status: number;
  /** Whether the message may be shown to the caller (false: the handler redacts it). */
  readonly expose: boolean;

  constructor(code: RuntimeErrorCode, message: string, options?: { cause?: unknown; expose?: boolean }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RuntimeError';
    this.code = code;
    this.status = runtimeCodes[code];
    this.expose = options?.expose ?? this.status < 500;
  }
}

/** A write with `ifVersion` found a different `_version`: the mutation rolls back (HTTP 409). */
export class DatabaseConflictError extends RuntimeError {
  readonly id: string;
  readonly expectedVersion: number;
  readonly actualVersion: number | null;

  constructor(id: string, expectedVersion: number, actualVersion: number | null) {
    super('SVC_RUNTIME_CONFLICT', `Document ${id} is at version ${actualVersion ?? 'none'}, expected ${expectedVersion}.`);
    this.name = 'DatabaseConflictError';
    this.id = id;
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }
}

/** An error a function throws on purpose: its message and JSON `data` reach the caller (HTTP 400). */
export class AppError extends RuntimeError {
  readonly data: unknown;

  constructor(message: string, data?: unknown) {
    super('SVC_RUNTIME_APP_ERROR', message, { expose: true });
    this.name = 'AppError';
    this.data = data ?? null;
  }
}

/** True for errors whose code and message may be sent to the caller. */
export function isExposedError(error: unknown): error is RuntimeError {
  return error instanceof RuntimeError && error.expose;
}

// The one place the CLI talks HTTP: JSON in and out, typed errors from the server's
// `{ error: { code, message } }` body, bounded retries for retryable failures of idempotent calls.
import type { z } from 'zod';
import { SvcError, errorCodes, type ErrorCode } from '../src/core/errors.js';

/** What the transport needs: the server origin, an optional bearer token and injectable effects. */
export interface HttpClientOptions {
  server: string;
  token?: string | undefined;
  /** Defaults to the global fetch (undici). */
  fetch?: typeof fetch;
  /** Total attempts for idempotent requests that fail with a retryable error (default 3). */
  maxAttempts?: number;
  /** Delay function, replaced by tests to avoid real waiting. */
  sleep?: (ms: number) => Promise<void>;
  /** Per-attempt timeout in milliseconds (default 30 s). */
  timeoutMs?: number;
  userAgent?: string;
}

/** One API call: method, path under the origin, optional query/body, and the zod schema of the success body. */
export interface RequestSpec<S extends z.ZodType> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Schema of the response body; `null` for responses without a body (204). */
  schema: S | null;
  /** Whether repeating the request is harmless; defaults to true for GET and DELETE. */
  idempotent?: boolean;
}

const sleepReal = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Send one request (with retries when allowed) and return the validated body. */
export async function sendRequest<S extends z.ZodType>(options: HttpClientOptions, spec: RequestSpec<S>): Promise<z.output<S>> {
  const idempotent = spec.idempotent ?? (spec.method === 'GET' || spec.method === 'DELETE');
  const attempts = idempotent ? Math.max(1, options.maxAttempts ?? 3) : 1;
  const sleep = options.sleep ?? sleepReal;
  for (let attempt = 1; ; attempt++) {
    try {
      return await sendOnce(options, spec);
    } catch (error) {
      const retry = error instanceof SvcError && error.kind === 'retryable' && attempt < attempts;
      if (!retry) throw error;
      const hinted = typeof error.details?.retryAfterMs === 'number' ? error.details.retryAfterMs : 0;
      await sleep(Math.min(10_000, Math.max(hinted, 250 * 2 ** (attempt - 1))));
    }
  }
}

async function sendOnce<S extends z.ZodType>(options: HttpClientOptions, spec: RequestSpec<S>): Promise<z.output<S>> {
  const url = new URL(spec.path, `${options.server}/`);
  for (const [key, value] of Object.entries(spec.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': options.userAgent ?? 'svc-cli' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (spec.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, {
      method: spec.method,
      headers,
      body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
  } catch (error) {
    throw networkError(error, url);
  }
  const text = await response.text().catch(() => '');
  if (!response.ok) throw errorFromResponse(response.status, text, response.headers.get('retry-after'));
  if (spec.schema === null) return undefined as z.output<S>;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SvcError('SVC_BAD_RESPONSE', `${spec.method} ${url.pathname} returned ${response.status} with a body that is not JSON`);
  }
  const parsed = spec.schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SvcError('SVC_BAD_RESPONSE', `${spec.method} ${url.pathname}: unexpected response (${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'})`);
  }
  return parsed.data;
}

/**
 * Turn a non-2xx response into an SvcError: the server's code when this CLI knows it,
 * SVC_REMOTE_ERROR (with the original code in details) when it does not.
 */
export function errorFromResponse(status: number, text: string, retryAfter?: string | null): SvcError {
  const details: Record<string, unknown> = { status };
  const seconds = retryAfter ? Number(retryAfter) : NaN;
  if (Number.isFinite(seconds) && seconds >= 0) details.retryAfterMs = seconds * 1000;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const err = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
  const message = typeof err?.message === 'string' ? err.message : `Server answered HTTP ${status}`;
  if (err && typeof err.details === 'object' && err.details !== null) Object.assign(details, err.details, { status });
  if (typeof err?.code === 'string' && Object.hasOwn(errorCodes, err.code)) {
    return new SvcError(err.code as ErrorCode, message, { details });
  }
  if (typeof err?.code === 'string') return new SvcError('SVC_REMOTE_ERROR', `${err.code}: ${message}`, { details: { ...details, remoteCode: err.code } });
  // No svc error body: a proxy or an overloaded server. Gateways and 503 are worth a retry.
  if (status === 429) return new SvcError('SVC_RATE_LIMITED', message, { details });
  if (status === 502 || status === 503 || status === 504) return new SvcError('SVC_UNAVAILABLE', message, { details });
  if (status === 401) return new SvcError('SVC_NOT_LOGGED_IN', `${message} (unauthenticated)`, { details });
  if (status === 404) return new SvcError('SVC_NOT_FOUND', message, { details });
  return new SvcError('SVC_REMOTE_ERROR', message, { details });
}

function networkError(error: unknown, url: URL): SvcError {
  const name = (error as Error).name;
  if (name === 'TimeoutError' || name === 'AbortError') return new SvcError('SVC_TIMEOUT', `Request to ${url.origin} timed out`, { cause: error });
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (error as Error).message;
  return new SvcError('SVC_NETWORK', `Cannot reach ${url.origin} (${reason})`, { cause: error });
}

/**
 * GET a status route whose "not ready" answers carry the same body as its 200 (such as /readyz and
 * its 503): returns the HTTP status with the validated body instead of turning 503 into an error.
 * One attempt, no retries: a status probe reports what is, now.
 */
export async function getStatusBody<S extends z.ZodType>(options: HttpClientOptions, path: string, schema: S, statuses: readonly number[]): Promise<{ status: number; body: z.output<S> }> {
  const url = new URL(path, `${options.server}/`);
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, { method: 'GET', headers: { accept: 'application/json', 'user-agent': options.userAgent ?? 'svc-cli' }, redirect: 'manual', signal: AbortSignal.timeout(options.timeoutMs ?? 30_000) });
  } catch (error) {
    throw networkError(error, url);
  }
  const text = await response.text().catch(() => '');
  if (!statuses.includes(response.status)) throw errorFromResponse(response.status, text, response.headers.get('retry-after'));
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SvcError('SVC_BAD_RESPONSE', `GET ${url.pathname} returned ${response.status} with a body that is not JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SvcError('SVC_BAD_RESPONSE', `GET ${url.pathname}: unexpected response (${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'})`);
  }
  return { status: response.status, body: parsed.data };
}

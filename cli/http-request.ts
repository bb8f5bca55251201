// The one place the CLI talks HTTP: JSON in and out over svc's HTTP client, typed errors from the
// server's `{ error: { code, message } }` body, bounded retries for retryable failures of idempotent
// calls under svc's retry policy (Retry-After, seconds or HTTP-date, honoured up to 10 s).
import type { z } from 'zod';
import { SvcError, errorCodes, type ErrorCode } from '../src/core/errors.js';
import { defaultHttpClient, HttpFailure, type HttpAnswer, type HttpClient } from '../src/core/http/http-client.js';
import { retryLoop } from '../src/core/retry-loop.js';
import { parseRetryAfter, type RetryPolicy } from '../src/core/retry-policy.js';

/** What the transport needs: the server origin, an optional bearer token and injectable effects. */
export interface HttpClientOptions {
  server: string;
  token?: string | undefined;
  /** Defaults to svc's shared HTTP client. */
  http?: HttpClient;
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

/** The CLI's retry policy: 250 ms doubling (half of it jitter) to 10 s; Retry-After up to the same 10 s. */
export const cliRetryPolicy: RetryPolicy = { baseMs: 250, capMs: 10_000 };

/** Largest JSON answer the CLI reads (a page of 10,000 log entries fits easily). */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** Send one request (with retries when allowed) and return the validated body. */
export async function sendRequest<S extends z.ZodType>(options: HttpClientOptions, spec: RequestSpec<S>): Promise<z.output<S>> {
  const idempotent = spec.idempotent ?? (spec.method === 'GET' || spec.method === 'DELETE');
  return retryLoop(
    async () => {
      try {
        return { kind: 'done', value: await sendOnce(options, spec) };
      } catch (error) {
        if (!(error instanceof SvcError && error.kind === 'retryable')) throw error;
        const hinted = error.details?.retryAfterMs;
        return { kind: 'retry', error, retryAfter: typeof hinted === 'number' ? String(Math.ceil(hinted / 1000)) : null };
      }
    },
    { policy: cliRetryPolicy, maxAttempts: idempotent ? Math.max(1, options.maxAttempts ?? 3) : 1, ...(options.sleep ? { sleep: options.sleep } : {}) },
  );
}

async function sendOnce<S extends z.ZodType>(options: HttpClientOptions, spec: RequestSpec<S>): Promise<z.output<S>> {
  const url = new URL(spec.path, `${options.server}/`);
  for (const [key, value] of Object.entries(spec.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': options.userAgent ?? 'svc-cli' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (spec.body !== undefined) headers['content-type'] = 'application/json';
  let response: HttpAnswer;
  try {
    response = await (options.http ?? defaultHttpClient).send({
      method: spec.method,
      url,
      headers,
      body: spec.body === undefined ? null : JSON.stringify(spec.body),
      timeoutMs: options.timeoutMs ?? 30_000,
      maxBodyBytes: MAX_ANSWER_BYTES,
    });
  } catch (error) {
    throw networkError(error, url);
  }
  const text = response.text();
  if (!isOk(response.status)) throw errorFromResponse(response.status, text, response.header('retry-after'));
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
    throw new SvcError(
      'SVC_BAD_RESPONSE',
      `${spec.method} ${url.pathname}: unexpected response (${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'})`,
    );
  }
  return parsed.data;
}

/**
 * Turn a non-2xx response into an SvcError: the server's code when this CLI knows it,
 * SVC_REMOTE_ERROR (with the original code in details) when it does not.
 */
export function errorFromResponse(status: number, text: string, retryAfter?: string | null, now: number = Date.now()): SvcError {
  const details: Record<string, unknown> = { status };
  const waitMs = parseRetryAfter(retryAfter, now);
  if (waitMs !== undefined) details.retryAfterMs = waitMs;
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

/** A 2xx status. */
export const isOk = (status: number): boolean => status >= 200 && status <= 299;

/** A transport failure as the CLI reports it: SVC_TIMEOUT, SVC_BAD_RESPONSE (too large) or SVC_NETWORK. */
export function networkError(error: unknown, url: URL): SvcError {
  if (error instanceof HttpFailure && (error.reason === 'timeout' || error.reason === 'aborted'))
    return new SvcError('SVC_TIMEOUT', `Request to ${url.origin} timed out`, { cause: error });
  if (error instanceof HttpFailure && error.reason === 'too-large')
    return new SvcError('SVC_BAD_RESPONSE', `${url.origin}${url.pathname} answered with a body larger than the CLI reads`, { cause: error });
  const reason = error instanceof HttpFailure ? error.detail : (error as Error).message;
  return new SvcError('SVC_NETWORK', `Cannot reach ${url.origin} (${reason})`, { cause: error });
}

/**
 * GET a status route whose "not ready" answers carry the same body as its 200 (such as /readyz and
 * its 503): returns the HTTP status with the validated body instead of turning 503 into an error.
 * One attempt, no retries: a status probe reports what is, now.
 */
export async function getStatusBody<S extends z.ZodType>(
  options: HttpClientOptions,
  path: string,
  schema: S,
  statuses: readonly number[],
): Promise<{ status: number; body: z.output<S> }> {
  const url = new URL(path, `${options.server}/`);
  let response: HttpAnswer;
  try {
    response = await (options.http ?? defaultHttpClient).send({
      method: 'GET',
      url,
      headers: { accept: 'application/json', 'user-agent': options.userAgent ?? 'svc-cli' },
      timeoutMs: options.timeoutMs ?? 30_000,
      maxBodyBytes: MAX_ANSWER_BYTES,
    });
  } catch (error) {
    throw networkError(error, url);
  }
  const text = response.text();
  if (!statuses.includes(response.status)) throw errorFromResponse(response.status, text, response.header('retry-after'));
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

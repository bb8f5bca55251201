// The runner's HTTP transport to the control plane, over svc's one HTTP client and retry policy
// (src/core): HTTPS unless loopback, redirects refused, the same idempotent request retried on network
// failure, 408, 425, 429 and 5xx with jittered doubling backoff (Retry-After honoured up to 10 s), and
// every JSON answer read with a size bound and validated against the node contract (src/nodes/contract.ts).
import type { z } from 'zod';
import { SvcError } from '../../src/core/errors.js';
import { defaultHttpClient, HttpFailure, type HttpClient, type HttpStream } from '../../src/core/http/http-client.js';
import { abortableSleep, retryLoop } from '../../src/core/retry-loop.js';
import { isLoopbackHost, isRetryableStatus } from '../provider/bridge-protocol.js';

export interface ControlHttpOptions {
  /** Control-plane base address (SVC_CONTROL_URL): https, or http on loopback only. */
  controlUrl: string;
  /** Deliveries per idempotent request including the first (default 5). */
  retryAttempts?: number;
  /** First retry delay, doubled per retry (half of it jitter) and capped at 10 s (default 250 ms). */
  retryDelayMs?: number;
  /** Bound on one JSON request (default 30 s). */
  requestTimeoutMs?: number;
  /** The HTTP client (default svc's shared one). */
  http?: HttpClient;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** One call: method, path under the base, bearer secret, optional JSON body. */
export interface ControlCall {
  method: 'GET' | 'POST';
  path: string;
  bearer: string;
  json?: unknown;
  /** Resend on network failure/408/425/429/5xx (only for idempotent requests). */
  retry: boolean;
  signal?: AbortSignal;
  /** Overrides requestTimeoutMs (the artifact download passes its own bound through `signal`). */
  timeoutMs?: number | null;
}

/** An answer whose body the caller reads (`read`) or drops (`discard`). */
export type ControlAnswer = HttpStream;

/** A small client bound to one control plane. */
export interface ControlHttp {
  readonly baseUrl: URL;
  /** Send a call; resolves with any non-redirect, non-retryable answer (the caller reads the status). */
  send(call: ControlCall): Promise<ControlAnswer>;
}

const MAX_JSON_BYTES = 1024 * 1024;

export { abortableSleep };

/** Validate SVC_CONTROL_URL: https, or http on loopback; no credentials, query or fragment. */
export function checkControlUrl(controlUrl: string): URL {
  let url: URL;
  try {
    url = new URL(controlUrl);
  } catch {
    throw new SvcError('SVC_RUNNER_CONFIG', 'SVC_CONTROL_URL is not a valid URL');
  }
  if (url.username || url.password || url.search || url.hash)
    throw new SvcError('SVC_RUNNER_CONFIG', 'SVC_CONTROL_URL may not carry credentials, a query or a fragment');
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) return url;
  throw new SvcError('SVC_RUNNER_CONFIG', 'SVC_CONTROL_URL requires HTTPS unless the control plane is on loopback');
}

/** Create the transport. */
export function createControlHttp(options: ControlHttpOptions): ControlHttp {
  const baseUrl = checkControlUrl(options.controlUrl);
  const http = options.http ?? defaultHttpClient;
  const attempts = Math.max(1, options.retryAttempts ?? 5);
  const policy = { baseMs: options.retryDelayMs ?? 250, capMs: 10_000 };
  const prefix = baseUrl.pathname.replace(/\/+$/, '');
  return {
    baseUrl,
    send(call) {
      const url = new URL(`${prefix}${call.path}`, baseUrl);
      const headers: Record<string, string> = { authorization: `Bearer ${call.bearer}`, accept: 'application/json' };
      if (call.json !== undefined) headers['content-type'] = 'application/json';
      const body = call.json === undefined ? null : JSON.stringify(call.json);
      const timeoutMs = call.timeoutMs === undefined ? (options.requestTimeoutMs ?? 30_000) : call.timeoutMs;
      return retryLoop<ControlAnswer>(
        async () => {
          call.signal?.throwIfAborted();
          let answer: ControlAnswer;
          try {
            answer = await http.open({ method: call.method, url, headers, body, signal: call.signal, timeoutMs });
          } catch (error) {
            call.signal?.throwIfAborted();
            return {
              kind: 'retry',
              error: new SvcError('SVC_RUNNER_CONTROL_UNREACHABLE', `The control plane could not be reached (${call.method} ${call.path})`, { cause: error }),
            };
          }
          if (answer.status >= 300 && answer.status < 400) {
            answer.discard();
            throw new SvcError('SVC_RUNNER_CONTROL_REJECTED', `The control plane answered ${call.method} ${call.path} with a redirect; redirects are refused`);
          }
          if (isRetryableStatus(answer.status)) {
            answer.discard();
            return {
              kind: 'retry',
              error: new SvcError('SVC_RUNNER_CONTROL_UNREACHABLE', `The control plane answered ${answer.status} to ${call.method} ${call.path}`),
              retryAfter: answer.header('retry-after'),
            };
          }
          return { kind: 'done', value: answer };
        },
        { policy, maxAttempts: call.retry ? attempts : 1, sleep: options.sleep ?? abortableSleep, signal: call.signal },
      );
    },
  };
}

/** Read a bounded JSON body and validate it; anything off-contract is SVC_RUNNER_CONTROL_REJECTED. */
export async function readContractJson<T extends z.ZodType>(answer: ControlAnswer, schema: T, what: string): Promise<z.output<T>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(await readBounded(answer, MAX_JSON_BYTES)));
  } catch {
    throw new SvcError('SVC_RUNNER_CONTROL_REJECTED', `The control plane sent an unreadable ${what} response`);
  }
  const result = schema.safeParse(parsed);
  if (!result.success) throw new SvcError('SVC_RUNNER_CONTROL_REJECTED', `The control plane sent a ${what} response that does not match the node contract`);
  return result.data;
}

/** The `SVC_*` code of an error body (`{ error: { code } }`), or null. */
export async function readErrorCode(answer: ControlAnswer): Promise<string | null> {
  try {
    const body = JSON.parse(new TextDecoder().decode(await readBounded(answer, 64 * 1024))) as { error?: { code?: unknown } };
    return typeof body.error?.code === 'string' ? body.error.code : null;
  } catch {
    return null;
  }
}

/** A refusal that names the status and code only (bodies never become runner records). */
export function rejected(what: string, status: number, code: string | null): SvcError {
  return new SvcError('SVC_RUNNER_CONTROL_REJECTED', `The control plane refused ${what} (${status}${code ? ` ${code}` : ''})`, { details: { status, code } });
}

/**
 * Read an answer's body, stopping once it passes `limit` bytes (Content-Length is checked first).
 * Throws `tooLarge()` (default SVC_RUNNER_CONTROL_REJECTED) past the limit.
 */
export async function readBounded(
  answer: ControlAnswer,
  limit: number,
  tooLarge: () => Error = () => new SvcError('SVC_RUNNER_CONTROL_REJECTED', 'The control plane response is too large'),
): Promise<Buffer> {
  try {
    return await answer.read(limit);
  } catch (error) {
    if (error instanceof HttpFailure && error.reason === 'too-large') throw tooLarge();
    throw error;
  }
}

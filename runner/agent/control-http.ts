// The runner's HTTP transport to the control plane: HTTPS unless loopback, redirects refused, the same
// idempotent request retried on network failure, 408, 425, 429 and 5xx with doubling backoff, and every
// JSON answer read with a size bound and validated against the node contract (src/nodes/contract.ts).
import type { z } from 'zod';
import { SvcError } from '../../src/core/errors.js';
import { isLoopbackHost, isRetryableStatus } from '../provider/bridge-protocol.js';

export interface ControlHttpOptions {
  /** Control-plane base address (SVC_CONTROL_URL): https, or http on loopback only. */
  controlUrl: string;
  /** Deliveries per idempotent request including the first (default 5). */
  retryAttempts?: number;
  /** First retry delay, doubled per retry and capped at 10 s (default 250 ms). */
  retryDelayMs?: number;
  /** Bound on one JSON request (default 30 s). */
  requestTimeoutMs?: number;
  fetch?: typeof globalThis.fetch;
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

/** A small client bound to one control plane. */
export interface ControlHttp {
  readonly baseUrl: URL;
  /** Send a call; resolves with any non-redirect, non-retryable response (the caller reads the status). */
  send(call: ControlCall): Promise<Response>;
}

const MAX_JSON_BYTES = 1024 * 1024;

/** Sleep that wakes early on abort. */
export const abortableSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });

/** Validate SVC_CONTROL_URL: https, or http on loopback; no credentials, query or fragment. */
export function checkControlUrl(controlUrl: string): URL {
  let url: URL;
  try {
    url = new URL(controlUrl);
  } catch {
    throw new SvcError('SVC_RUNNER_CONFIG', 'SVC_CONTROL_URL is not a valid URL');
  }
  if (url.username || url.password || url.search || url.hash) throw new SvcError('SVC_RUNNER_CONFIG', 'SVC_CONTROL_URL may not carry credentials, a query or a fragment');
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) return url;
  throw new SvcError('SVC_RUNNER_CONFIG', 'SVC_CONTROL_URL requires HTTPS unless the control plane is on loopback');
}

/** Create the transport. */
export function createControlHttp(options: ControlHttpOptions): ControlHttp {
  const baseUrl = checkControlUrl(options.controlUrl);
  const doFetch = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? abortableSleep;
  const attempts = Math.max(1, options.retryAttempts ?? 5);
  const prefix = baseUrl.pathname.replace(/\/+$/, '');
  return {
    baseUrl,
    async send(call) {
      const url = new URL(`${prefix}${call.path}`, baseUrl);
      const headers: Record<string, string> = { authorization: `Bearer ${call.bearer}`, accept: 'application/json' };
      if (call.json !== undefined) headers['content-type'] = 'application/json';
      const body = call.json === undefined ? null : JSON.stringify(call.json);
      let lastError = new SvcError('SVC_RUNNER_CONTROL_UNREACHABLE', `The control plane could not be reached (${call.method} ${call.path})`);
      const tries = call.retry ? attempts : 1;
      for (let attempt = 1; attempt <= tries; attempt++) {
        if (attempt > 1) await sleep(Math.min(10_000, (options.retryDelayMs ?? 250) * 2 ** (attempt - 2)), call.signal);
        call.signal?.throwIfAborted();
        const timeoutMs = call.timeoutMs === undefined ? (options.requestTimeoutMs ?? 30_000) : call.timeoutMs;
        const signals = [call.signal, timeoutMs === null ? undefined : AbortSignal.timeout(timeoutMs)].filter((s): s is AbortSignal => s !== undefined);
        let response: Response;
        try {
          response = await doFetch(url, { method: call.method, headers, body, redirect: 'manual', ...(signals.length ? { signal: AbortSignal.any(signals) } : {}) });
        } catch (error) {
          call.signal?.throwIfAborted();
          lastError = new SvcError('SVC_RUNNER_CONTROL_UNREACHABLE', `The control plane could not be reached (${call.method} ${call.path})`, { cause: error });
          continue;
        }
        if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
          await response.body?.cancel().catch(() => undefined);
          throw new SvcError('SVC_RUNNER_CONTROL_REJECTED', `The control plane answered ${call.method} ${call.path} with a redirect; redirects are refused`);
        }
        if (isRetryableStatus(response.status)) {
          await response.body?.cancel().catch(() => undefined);
          lastError = new SvcError('SVC_RUNNER_CONTROL_UNREACHABLE', `The control plane answered ${response.status} to ${call.method} ${call.path}`);
          continue;
        }
        return response;
      }
      throw lastError;
    },
  };
}

/** Read a bounded JSON body and validate it; anything off-contract is SVC_RUNNER_CONTROL_REJECTED. */
export async function readContractJson<T extends z.ZodType>(response: Response, schema: T, what: string): Promise<z.output<T>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(await readBounded(response, MAX_JSON_BYTES)));
  } catch {
    throw new SvcError('SVC_RUNNER_CONTROL_REJECTED', `The control plane sent an unreadable ${what} response`);
  }
  const result = schema.safeParse(parsed);
  if (!result.success) throw new SvcError('SVC_RUNNER_CONTROL_REJECTED', `The control plane sent a ${what} response that does not match the node contract`);
  return result.data;
}

/** The `SVC_*` code of an error body (`{ error: { code } }`), or null. */
export async function readErrorCode(response: Response): Promise<string | null> {
  try {
    const body = JSON.parse(new TextDecoder().decode(await readBounded(response, 64 * 1024))) as { error?: { code?: unknown } };
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
 * Read a response body, stopping once it passes `limit` bytes (checks Content-Length first).
 * Throws `tooLarge()` (default SVC_RUNNER_CONTROL_REJECTED) past the limit.
 */
export async function readBounded(response: Response, limit: number, tooLarge: () => Error = () => new SvcError('SVC_RUNNER_CONTROL_REJECTED', 'The control plane response is too large')): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return Buffer.concat(chunks, total);
}

// The task's side of the release endpoint: requests with the bearer credential through svc's HTTP
// client, retried with svc's backoff while the endpoint cannot be reached (a control plane restarting,
// a network settling after the task starts), errors turned back into the SvcError the endpoint
// answered. Never follows redirects: the credential goes to the endpoint's origin only.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { errorCodes, SvcError, type ErrorCode } from '../../../src/core/errors.js';
import { defaultHttpClient, HttpFailure, type HttpClient } from '../../../src/core/http/http-client.js';
import { backoffMs } from '../../../src/core/retry-policy.js';
import { handleWriter } from '../handle-writer.js';

export interface EndpointClientOptions {
  credential: string;
  /** How long unreachable-endpoint failures are retried before SVC_RELEASE_ENDPOINT_UNREACHABLE. */
  retryWindowMs: number;
  http?: HttpClient;
}

/** 200 ms doubling to 4 s, half of it jitter: many tasks of one service start together. */
const ENDPOINT_RETRY = { baseMs: 200, capMs: 4000 };

export interface DownloadedFile {
  sizeBytes: number;
  /** Lowercase hex SHA-256 of the bytes written. */
  sha256: string;
}

/** Answers worth another try: a proxy or a control plane that is not ready yet. */
const retryableStatus = new Set([502, 503, 504]);
const MAX_ERROR_BODY = 64 * 1024;

/** An endpoint answer that is an error: the endpoint's own code when it sent one. */
async function answerError(statusCode: number, body: AsyncIterable<Uint8Array>, url: URL): Promise<SvcError> {
  let text = '';
  for await (const chunk of body) {
    if (text.length < MAX_ERROR_BODY) text += Buffer.from(chunk).toString('utf8');
  }
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    const code = parsed.error?.code;
    if (typeof code === 'string' && code in errorCodes) {
      return new SvcError(code as ErrorCode, typeof parsed.error?.message === 'string' ? parsed.error.message : undefined, { details: { status: statusCode } });
    }
  } catch {
    // Not the endpoint's JSON: described by status below.
  }
  return new SvcError(retryableStatus.has(statusCode) ? 'SVC_RELEASE_ENDPOINT_UNREACHABLE' : 'SVC_INTERNAL', `${url.pathname} answered HTTP ${statusCode}`, {
    details: { status: statusCode },
  });
}

/** Failures of the connection itself (refused, reset, unreachable, timed out), not of the files here. */
const transportCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
]);

function isRetryable(error: unknown): boolean {
  if (error instanceof SvcError) return retryableStatus.has(Number(error.details?.status));
  if (error instanceof HttpFailure) return error.reason === 'network' || error.reason === 'timeout';
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (transportCodes.has(code) || code.startsWith('UND_ERR_'));
}

export interface EndpointClient {
  getJson<T>(url: URL, schema: z.ZodType<T>): Promise<T>;
  putJson(url: URL, body: unknown): Promise<unknown>;
  /** GET a file into `path` (created, 0600), hashing it on the way. */
  download(url: URL, path: string): Promise<DownloadedFile>;
  /** PUT the file at `path`; answers the endpoint's JSON. */
  upload(url: URL, path: string): Promise<unknown>;
}

export function createEndpointClient(options: EndpointClientOptions): EndpointClient {
  const headers = { authorization: `Bearer ${options.credential}` };
  const http = options.http ?? defaultHttpClient;

  /** Run one exchange, again with backoff while the endpoint is unreachable, until the window closes. */
  async function withRetry<T>(what: URL, attempt: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + options.retryWindowMs;
    for (let failures = 1; ; failures++) {
      try {
        return await attempt();
      } catch (error) {
        if (!isRetryable(error)) throw error;
        const delay = backoffMs(ENDPOINT_RETRY, failures, Math.random());
        if (Date.now() + delay > deadline) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new SvcError(
            'SVC_RELEASE_ENDPOINT_UNREACHABLE',
            `No answer from ${what.origin}${what.pathname} within ${options.retryWindowMs} ms: ${reason}`,
            { cause: error },
          );
        }
        await sleep(delay);
      }
    }
  }

  async function exchange(
    url: URL,
    init: { method: 'GET' | 'PUT'; body?: Buffer | Readable; headers?: Record<string, string> },
  ): Promise<AsyncIterable<Uint8Array>> {
    // No whole-exchange bound (a large artifact); undici's old per-phase 300 s bound stays as the idle one.
    const answer = await http.open({
      method: init.method,
      url,
      headers: { ...headers, ...init.headers },
      body: init.body ?? null,
      timeoutMs: null,
      idleTimeoutMs: 300_000,
    });
    if (answer.status < 200 || answer.status >= 300) throw await answerError(answer.status, answer.body, url);
    return answer.body;
  }

  async function json(body: AsyncIterable<Uint8Array>, url: URL): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(Buffer.from(chunk));
    const text = Buffer.concat(chunks).toString('utf8');
    try {
      return JSON.parse(text);
    } catch {
      throw new SvcError('SVC_INTERNAL', `${url.pathname} answered something other than JSON`);
    }
  }

  return {
    getJson: (url, schema) =>
      withRetry(url, async () => {
        const parsed = schema.safeParse(await json(await exchange(url, { method: 'GET' }), url));
        if (!parsed.success)
          throw new SvcError(
            'SVC_SWARM_TASK_CONFIG',
            `${url.pathname} answered a body this entrypoint does not understand: ${parsed.error.issues[0]?.message ?? ''}`,
          );
        return parsed.data;
      }),
    putJson: (url, body) =>
      withRetry(url, async () =>
        json(await exchange(url, { method: 'PUT', body: Buffer.from(JSON.stringify(body)), headers: { 'content-type': 'application/json' } }), url),
      ),
    download: (url, path) =>
      withRetry(url, async () => {
        const body = await exchange(url, { method: 'GET' });
        const hash = createHash('sha256');
        let sizeBytes = 0;
        const meter = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            sizeBytes += chunk.length;
            hash.update(chunk);
            done(null, chunk);
          },
        });
        // A retry starts the file over.
        await rm(path, { force: true });
        const handle = await open(path, 'wx', 0o600);
        try {
          await pipeline(body, meter, handleWriter(handle));
        } finally {
          await handle.close();
        }
        return { sizeBytes, sha256: hash.digest('hex') };
      }),
    upload: (url, path) =>
      withRetry(url, async () => {
        const { size } = await stat(path);
        const body = await exchange(url, {
          method: 'PUT',
          body: createReadStream(path),
          headers: { 'content-type': 'application/octet-stream', 'content-length': String(size) },
        });
        return json(body, url);
      }),
  };
}

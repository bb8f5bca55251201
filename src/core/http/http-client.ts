// svc's one outbound HTTP client, over undici's request(): a whole-exchange timeout (headers and body
// timeouts follow it, so a long exchange is not cut by undici's 300 s defaults), the caller's abort
// signal, bodies read with a size bound, redirects never followed (a 3xx is handed back as it is), and
// every transport failure as one HttpFailure saying why. Retrying is the caller's, through retry-loop.ts.
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpRequest {
  method: HttpMethod;
  url: string | URL;
  headers?: Record<string, string>;
  body?: string | Uint8Array | Readable | null;
  signal?: AbortSignal | undefined;
  /** Bound on the whole exchange, first byte sent to last byte read (default 30 s); null: only `signal`. */
  timeoutMs?: number | null;
  /** Longest wait for the answer's headers or between body chunks (a stalled download, a quiet log stream); default none beyond `timeoutMs`. */
  idleTimeoutMs?: number;
  /** Largest body `send` reads (default 1 MiB); past it the exchange fails with reason 'too-large'. */
  maxBodyBytes?: number;
}

/** A complete answer (any status, 3xx included). */
export interface HttpAnswer {
  status: number;
  /** A header's value (the first, when repeated), or null. */
  header(name: string): string | null;
  body: Buffer;
  text(): string;
}

/** An answer whose body is still arriving; read it or call `discard()`. */
export interface HttpStream {
  status: number;
  header(name: string): string | null;
  body: AsyncIterable<Uint8Array>;
  /** Drop the rest of the body (and the connection with it). */
  discard(): void;
  /** Read what is left, at most `limit` bytes (reason 'too-large' past it). */
  read(limit: number): Promise<Buffer>;
}

/** Why an exchange failed before an answer was complete. */
export type HttpFailureReason = 'timeout' | 'aborted' | 'network' | 'too-large';

export class HttpFailure extends Error {
  override readonly name = 'HttpFailure';
  constructor(
    readonly reason: HttpFailureReason,
    message: string,
    options?: { cause?: unknown; detail?: string },
  ) {
    super(message, options);
    this.detail = options?.detail ?? message;
  }
  /** The short cause (ECONNREFUSED, a TLS error's text …) for a caller's own message. */
  readonly detail: string;
}

export interface HttpClient {
  /** One exchange, body read in full (bounded). */
  send(req: HttpRequest): Promise<HttpAnswer>;
  /** One exchange, body left to the caller (downloads, log streams). The timeout covers the reading too. */
  open(req: HttpRequest): Promise<HttpStream>;
}

export interface HttpClientOptions {
  /** Connection pool (tests, or a dedicated agent); default undici's global one. */
  dispatcher?: Dispatcher;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BODY = 1024 * 1024;

/** Build a client. */
export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  async function open(req: HttpRequest): Promise<HttpStream> {
    const url = typeof req.url === 'string' ? new URL(req.url) : req.url;
    const timeoutMs = req.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : req.timeoutMs;
    const timeout = timeoutMs === null ? undefined : AbortSignal.timeout(timeoutMs);
    const signals = [req.signal, timeout].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    // undici's per-phase bounds: the idle bound, else the whole-exchange one (0 turns undici's 300 s default off).
    const phaseMs = Math.min(req.idleTimeoutMs ?? Infinity, timeoutMs ?? Infinity);
    const failure = (error: unknown): HttpFailure => {
      if (error instanceof HttpFailure) return error;
      if (timeout?.aborted || isTimeoutCode(error)) {
        const bound =
          isTimeoutCode(error) && !timeout?.aborted ? `nothing arrived for ${seconds(phaseMs)} s` : `no complete answer within ${seconds(timeoutMs ?? 0)} s`;
        return new HttpFailure('timeout', `${req.method} ${url.origin}${url.pathname}: ${bound}`, { cause: error, detail: bound });
      }
      if (req.signal?.aborted) return new HttpFailure('aborted', `${req.method} ${url.origin}${url.pathname} was aborted`, { cause: error });
      const detail = reasonOf(error);
      return new HttpFailure('network', `${req.method} ${url.origin}${url.pathname} failed (${detail})`, { cause: error, detail });
    };
    let answer: Dispatcher.ResponseData;
    try {
      signal?.throwIfAborted();
      answer = await request(url, {
        method: req.method,
        headers: req.headers ?? {},
        body: req.body ?? null,
        ...(signal ? { signal } : {}),
        headersTimeout: Number.isFinite(phaseMs) ? phaseMs : 0,
        bodyTimeout: Number.isFinite(phaseMs) ? phaseMs : 0,
        ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      });
    } catch (error) {
      throw failure(error);
    }
    const headers = answer.headers;
    const body = answer.body;
    return {
      status: answer.statusCode,
      header: (name) => headerOf(headers, name),
      body: (async function* () {
        try {
          for await (const chunk of body) yield chunk as Uint8Array;
        } catch (error) {
          throw failure(error);
        }
      })(),
      discard() {
        drop(body);
      },
      async read(limit) {
        const declared = Number(headerOf(headers, 'content-length') ?? NaN);
        if (Number.isFinite(declared) && declared > limit) {
          drop(body);
          throw new HttpFailure('too-large', `${req.method} ${url.origin}${url.pathname} answered ${declared} bytes, more than ${limit}`);
        }
        const chunks: Buffer[] = [];
        let total = 0;
        try {
          for await (const chunk of body) {
            total += (chunk as Buffer).byteLength;
            if (total > limit) {
              drop(body);
              throw new HttpFailure('too-large', `${req.method} ${url.origin}${url.pathname} answered more than ${limit} bytes`);
            }
            chunks.push(chunk as Buffer);
          }
        } catch (error) {
          throw failure(error);
        }
        return Buffer.concat(chunks, total);
      },
    };
  }

  return {
    open,
    async send(req) {
      const stream = await open(req);
      const body = await stream.read(req.maxBodyBytes ?? DEFAULT_MAX_BODY);
      return { status: stream.status, header: stream.header, body, text: () => body.toString('utf8') };
    },
  };
}

/** The client every caller shares unless it is handed another. */
export const defaultHttpClient: HttpClient = createHttpClient();

/** Destroy a body nobody will read; undici reports that as an error event, which is expected here. */
function drop(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

function headerOf(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name.toLowerCase()];
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}

function isTimeoutCode(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT';
}

function reasonOf(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code;
  if (typeof code === 'string' && !code.startsWith('UND_ERR')) return code;
  return String(e?.message ?? e?.cause?.message ?? error);
}

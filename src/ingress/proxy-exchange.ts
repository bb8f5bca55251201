// One proxied request (the proxy's hot path): an undici dispatch handler that streams the response to
// the client chunk by chunk with backpressure, retries what is safe to retry and emits its record.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { performance } from 'node:perf_hooks';
import { type Dispatcher } from 'undici';
import { clientAddress, downstreamResponseHeaders, upstreamRequestHeaders } from './forward-headers.js';
import type { RequestRecord } from './request-record.js';
import type { RouteEntry, RouteTable, UpstreamTarget } from './route-table.js';
import { ClientGoneError, MAX_REROUTES, RETRYABLE, SAFE_METHODS, UNAVAILABLE } from './proxy-policy.js';

/** What an exchange needs of the proxy that started it. */
export interface ExchangeOwner {
  emit(record: RequestRecord): void;
  readonly routes: RouteTable;
  readonly trustProxy: boolean;
  readonly stampEndedAt: boolean;
  /** Forward the request afresh (to the project's current target, or into its hold): this exchange has let go of it. */
  reroute(req: IncomingMessage, res: ServerResponse, entry: RouteEntry, startedAt: number, reroutes: number): void;
}

/** One proxied request: undici dispatch handler + downstream writer + its metrics record. */
export class Exchange implements Dispatcher.DispatchHandler {
  readonly #proxy: ExchangeOwner;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #entry: RouteEntry;
  readonly #target: UpstreamTarget | null;
  readonly #startedAt: number;
  readonly #generation: number;
  /** How often this request was already sent on from a target that had been replaced and stopped. */
  readonly #reroutes: number;
  #controller: Dispatcher.DispatchController | null = null;
  #dispatcher: Dispatcher | null = null;
  #options: Dispatcher.DispatchOptions | null = null;
  #hasBody = false;
  #attempts = 0;
  #status = 0;
  #bytes = 0;
  // Lengths of chunks handed to res.write whose completion callback has not run yet (FIFO).
  #lengths: number[] = [];
  #head = 0;
  #responseStarted = false;
  #upstreamDone = false;
  #streamError = false;
  #closed = false;
  #liveStream = false;
  #platform = false;

  constructor(
    proxy: ExchangeOwner,
    req: IncomingMessage,
    res: ServerResponse,
    entry: RouteEntry,
    target: UpstreamTarget | null,
    startedAt: number,
    reroutes = 0,
  ) {
    this.#proxy = proxy;
    this.#req = req;
    this.#res = res;
    this.#entry = entry;
    this.#target = target;
    this.#startedAt = startedAt;
    this.#generation = entry.generation;
    this.#reroutes = reroutes;
    res.on('close', this.#onClose);
  }

  /** Count this request as an open live-query stream of its target until it closes. */
  countLiveStream(target: UpstreamTarget): void {
    target.liveStreams++;
    this.#liveStream = true;
  }

  dispatch(dispatcher: Dispatcher): void {
    const req = this.#req;
    const socket = req.socket as TLSSocket;
    const { headers, hasBody } = upstreamRequestHeaders(
      req.rawHeaders,
      clientAddress(socket.remoteAddress),
      socket.encrypted ? 'https' : 'http',
      this.#proxy.trustProxy,
    );
    this.#hasBody = hasBody;
    this.#dispatcher = dispatcher;
    this.#options = { path: req.url!, method: req.method as Dispatcher.HttpMethod, headers, body: hasBody ? req : null };
    this.#attempts++;
    dispatcher.dispatch(this.#options, this);
  }

  /** svc's own 503 (no active release; the hold ran out or is full): the app never sees the request. */
  answerForSvc(body: Buffer, retryAfterSeconds?: number): void {
    this.#platform = true;
    this.sendError(503, body, retryAfterSeconds);
  }

  /** Answer with an ingress error (JSON) when no response has started. */
  sendError(status: number, body: Buffer, retryAfterSeconds?: number): void {
    const res = this.#res;
    if (res.headersSent || res.destroyed) return;
    this.#status = status;
    const headers = ['content-type', 'application/json; charset=utf-8', 'content-length', String(body.length), 'cache-control', 'no-store'];
    if (retryAfterSeconds !== undefined) headers.push('retry-after', String(retryAfterSeconds));
    res.writeHead(status, headers);
    this.#lengths.push(body.length);
    res.end(body, this.#onWritten);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#closed) controller.abort(new ClientGoneError());
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200 || this.#closed) return; // 1xx informational responses are not forwarded
    const res = this.#res;
    try {
      res.writeHead(statusCode, downstreamResponseHeaders(headers));
    } catch (error) {
      // A header Node refuses to send: treat like an upstream failure.
      this.#streamError = true;
      controller.abort(error as Error);
      this.sendError(502, UNAVAILABLE);
      return;
    }
    this.#status = statusCode;
    this.#responseStarted = true;
    const type = headers['content-type'];
    // Server-sent events: send the headers now so the client sees the stream open before the first event.
    if (typeof type === 'string' && type.startsWith('text/event-stream')) res.flushHeaders();
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#closed) return;
    this.#lengths.push(chunk.length);
    if (!this.#res.write(chunk, this.#onWritten)) {
      controller.pause();
      this.#res.once('drain', this.#onDrain);
    }
  }

  onResponseEnd(): void {
    this.#upstreamDone = true;
    if (!this.#closed) this.#res.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#upstreamDone = true;
    if (this.#closed) return; // we aborted because the client left
    if (this.#responseStarted) {
      // The body broke after headers were sent: the client must see a truncated response, not a clean end.
      this.#streamError = true;
      this.#res.destroy(error);
      return;
    }
    const code = (error as { code?: string }).code;
    const options = this.#options;
    if (this.#mayReroute(code)) return this.#reroute();
    if (
      !this.#hasBody &&
      this.#attempts === 1 &&
      code !== undefined &&
      RETRYABLE.has(code) &&
      this.#dispatcher !== null &&
      options !== null &&
      SAFE_METHODS.has(options.method)
    ) {
      // A keep-alive connection closed by the upstream just as we reused it: retry a safe request once on a fresh one.
      this.#upstreamDone = false;
      this.#attempts++;
      this.#dispatcher.dispatch(options, this);
      return;
    }
    this.#streamError = true;
    this.sendError(502, UNAVAILABLE);
  }

  /**
   * A replaced target whose drain ran out is stopped with requests still queued for it; those never
   * reached an app that will answer them, so they go to whatever serves the project now. Only requests
   * without a body, and only safe methods unless the connection was refused (then nothing was sent).
   */
  #mayReroute(code: string | undefined): boolean {
    const target = this.#target;
    const options = this.#options;
    if (target === null || target.routed || options === null || this.#hasBody || this.#reroutes >= MAX_REROUTES) return false;
    if (code === 'ECONNREFUSED') return true;
    return code !== undefined && RETRYABLE.has(code) && SAFE_METHODS.has(options.method);
  }

  #reroute(): void {
    const target = this.#target!;
    this.#closed = true;
    this.#res.off('close', this.#onClose);
    if (this.#liveStream) target.liveStreams--;
    this.#proxy.routes.release(target);
    this.#proxy.reroute(this.#req, this.#res, this.#entry, this.#startedAt, this.#reroutes + 1);
  }

  readonly #onWritten = (error?: Error | null): void => {
    const lengths = this.#lengths;
    const length = lengths[this.#head++] ?? 0;
    if (!error) this.#bytes += length;
    // Everything written so far has completed: reset so a long event stream does not grow the queue.
    if (this.#head === lengths.length) {
      lengths.length = 0;
      this.#head = 0;
    }
  };

  readonly #onDrain = (): void => {
    this.#controller?.resume();
  };

  // Body termination (finished, client gone, or destroyed after a stream error): once per request.
  readonly #onClose = (): void => {
    if (this.#closed) return;
    this.#closed = true;
    const res = this.#res;
    const finished = res.writableFinished;
    if (!finished && !this.#upstreamDone) this.#controller?.abort(new ClientGoneError());
    const target = this.#target;
    if (target !== null) {
      if (this.#liveStream) target.liveStreams--;
      this.#proxy.routes.release(target);
    }
    // Write callbacks of the last chunk run before 'close'; anything still queued never reached the client.
    const record: { -readonly [K in keyof RequestRecord]: RequestRecord[K] } = {
      projectId: this.#entry.projectId,
      releaseId: target === null ? null : target.releaseId,
      generation: this.#generation,
      method: this.#req.method ?? 'GET',
      status: this.#status,
      latencyMs: performance.now() - this.#startedAt,
      bytes: this.#bytes,
      aborted: !finished && !this.#streamError,
      streamError: this.#streamError,
      platform: this.#platform,
    };
    // Stamped here rather than copied into a new object by the observer: one record per request.
    if (this.#proxy.stampEndedAt) record.endedAt = Date.now();
    this.#proxy.emit(record);
  };
}

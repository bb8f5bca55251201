// The proxy hot path: one Exchange object per request drives undici's low-level dispatch API,
// so bodies stream both ways chunk by chunk with backpressure and nothing is buffered.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { performance } from 'node:perf_hooks';
import { Pool, type Dispatcher } from 'undici';
import type { Logger } from '../core/logger.js';
import { clientAddress, downstreamResponseHeaders, upstreamRequestHeaders } from './forward-headers.js';
import { proxyUpgrade, type UpgradeOwner } from './proxy-upgrade.js';
import type { RequestObserver, RequestRecord } from './request-record.js';
import type { RouteEntry, RouteHold, RouteTable, UpstreamTarget } from './route-table.js';
import {
  ClientGoneError,
  HOLD_EXPIRED,
  isLiveQueryStream,
  MAX_HELD_PER_PROJECT,
  NO_RELEASE,
  RETRY_AFTER_SECONDS,
  RETRYABLE,
  SAFE_METHODS,
  UNAVAILABLE,
} from './proxy-policy.js';

export interface ProxyOptions {
  routes: RouteTable;
  /** Keep and append incoming X-Forwarded-* / Forwarded (a trusted proxy is in front). */
  trustProxy: boolean;
  /** Told about every finished request; the array may grow after creation. */
  observers: RequestObserver[];
  /** Wait for upstream response headers at most this long (default 120 s). */
  headersTimeoutMs?: number;
  /** Longest silence inside a response body (default 0 = none, for server-sent events). */
  bodyTimeoutMs?: number;
  /** Connection cap per upstream; more requests queue (default 256). */
  connectionsPerUpstream?: number;
  /** Set `endedAt` on each record (the ingress process: its records reach the control plane later). */
  stampEndedAt?: boolean;
  logger?: Logger;
}

/** The proxy: forward(req, res, entry) takes over the response for an app host. */
export class IngressProxy {
  readonly #options: ProxyOptions;
  readonly #pools = new Set<Pool>();
  readonly #poolOptions: Pool.Options;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  /** Requests taken and not yet terminated towards the client, upgraded connections included. */
  active = 0;
  #idleWaiters: (() => void)[] = [];
  /** Upgraded (WebSocket) client connections with the target they are joined to. */
  readonly #tunnels = new Map<Duplex, UpstreamTarget>();
  readonly #upgradeOwner: UpgradeOwner;

  constructor(options: ProxyOptions) {
    this.#options = options;
    this.headersTimeoutMs = options.headersTimeoutMs ?? 120_000;
    this.bodyTimeoutMs = options.bodyTimeoutMs ?? 0;
    // pipelining 1 = one request at a time per keep-alive connection (no HTTP pipelining).
    this.#poolOptions = {
      connections: options.connectionsPerUpstream ?? 256,
      pipelining: 1,
      keepAliveTimeout: 4_000,
      headersTimeout: this.headersTimeoutMs,
      bodyTimeout: this.bodyTimeoutMs,
    };
    this.#upgradeOwner = {
      routes: options.routes,
      trustProxy: options.trustProxy,
      headersTimeoutMs: this.headersTimeoutMs,
      begin: () => void this.active++,
      end: () => this.#leave(),
      // Upgrades are rare: a copy with the end time is fine here (requests stamp theirs in place).
      observe: (record) => this.#observe(options.stampEndedAt === true ? { ...record, endedAt: Date.now() } : record),
    };
  }

  /** Proxy an upgrade request (WebSocket) to the entry's active target; the joined connection counts as in flight. */
  upgrade(req: IncomingMessage, client: Duplex, head: Buffer, entry: RouteEntry, startedAt: number = performance.now()): void {
    proxyUpgrade(this.#upgradeOwner, this.#tunnels, req, client, head, entry, startedAt);
  }

  /** Close the upgraded connections still joined to `target` (its drain ran out of time). */
  closeUpgrades(target: UpstreamTarget): number {
    let closed = 0;
    for (const [client, joined] of this.#tunnels) {
      if (joined !== target) continue;
      client.destroy();
      closed++;
    }
    return closed;
  }

  /** Upgraded connections currently joined. */
  get upgrades(): number {
    return this.#tunnels.size;
  }

  get routes(): RouteTable {
    return this.#options.routes;
  }

  /** Proxy one request to the entry's active target (held while the project is held; 503 when there is none). Hot path. */
  forward(req: IncomingMessage, res: ServerResponse, entry: RouteEntry, startedAt: number = performance.now()): void {
    let hold = entry.hold;
    if (entry.target === null) {
      // An asleep route holds its requests while it wakes, like a migration window.
      if (entry.asleep) hold = this.#options.routes.wakeHold(entry);
      if (hold !== null && !hold.expired) return this.#park(req, res, entry, hold, startedAt);
    }
    const target = this.#options.routes.acquire(entry);
    this.active++;
    const exchange = new Exchange(this, req, res, entry, target, startedAt);
    if (target !== null && isLiveQueryStream(req)) exchange.countLiveStream(target);
    if (target !== null) exchange.dispatch(this.#dispatcher(target));
    else if (hold !== null) exchange.answerForSvc(HOLD_EXPIRED, RETRY_AFTER_SECONDS);
    else exchange.answerForSvc(NO_RELEASE);
  }

  /** Wait (request unread) until the project's hold ends, then forward; a client that leaves is forgotten. */
  #park(req: IncomingMessage, res: ServerResponse, entry: RouteEntry, hold: RouteHold, startedAt: number): void {
    if (hold.waiters.size >= MAX_HELD_PER_PROJECT) return this.#heldOut(req, res, entry, startedAt);
    const socket = req.socket;
    const wake = (): void => {
      socket.off('close', gone);
      if (socket.destroyed) return;
      // Its hold ran out: the answer now, not a new wake hold for an asleep route.
      if (hold.expired) this.#heldOut(req, res, entry, startedAt);
      else this.forward(req, res, entry, startedAt);
    };
    const gone = (): void => {
      hold.waiters.delete(wake);
    };
    hold.waiters.add(wake);
    socket.once('close', gone);
  }

  /** 503 with Retry-After: the hold ran out or is full. */
  #heldOut(req: IncomingMessage, res: ServerResponse, entry: RouteEntry, startedAt: number): void {
    this.active++;
    new Exchange(this, req, res, entry, null, startedAt).answerForSvc(HOLD_EXPIRED, RETRY_AFTER_SECONDS);
  }

  #dispatcher(target: UpstreamTarget): Dispatcher {
    let pool = target.dispatcher as Pool | null;
    if (pool === null) {
      pool = new Pool(target.origin, this.#poolOptions);
      this.#pools.add(pool);
      target.dispatcher = pool;
    }
    return pool;
  }

  /** A target finished its last request after being replaced: close its keep-alive connections. */
  retire(target: UpstreamTarget): void {
    const pool = target.dispatcher as Pool | null;
    target.dispatcher = null;
    if (pool === null) return;
    this.#pools.delete(pool);
    pool.close().catch((error: unknown) => this.#options.logger?.debug({ err: error }, 'closing an upstream pool failed'));
  }

  /** Report a finished request to every observer (an observer failure never breaks the proxy). */
  emit(record: RequestRecord): void {
    this.#leave();
    this.#observe(record);
  }

  #leave(): void {
    if (--this.active === 0 && this.#idleWaiters.length > 0) for (const wake of this.#idleWaiters.splice(0)) wake();
  }

  #observe(record: RequestRecord): void {
    for (const observe of this.#options.observers) {
      try {
        observe(record);
      } catch (error) {
        this.#options.logger?.error({ err: error }, 'ingress request observer failed');
      }
    }
  }

  get trustProxy(): boolean {
    return this.#options.trustProxy;
  }

  get stampEndedAt(): boolean {
    return this.#options.stampEndedAt === true;
  }

  /** Resolve true once no proxied request is active, false after timeoutMs. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.active === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const at = this.#idleWaiters.indexOf(wake);
        if (at !== -1) this.#idleWaiters.splice(at, 1);
        resolve(false);
      }, timeoutMs);
      this.#idleWaiters.push(wake);
    });
  }

  /** Close every upstream connection; requests still streaming (e.g. server-sent events) and upgraded connections are cut. */
  async close(): Promise<void> {
    for (const client of this.#tunnels.keys()) client.destroy();
    const pools = [...this.#pools];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.destroy().catch(() => undefined)));
  }
}

/** One proxied request: undici dispatch handler + downstream writer + its metrics record. */
class Exchange implements Dispatcher.DispatchHandler {
  readonly #proxy: IngressProxy;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #entry: RouteEntry;
  readonly #target: UpstreamTarget | null;
  readonly #startedAt: number;
  readonly #generation: number;
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

  constructor(proxy: IngressProxy, req: IncomingMessage, res: ServerResponse, entry: RouteEntry, target: UpstreamTarget | null, startedAt: number) {
    this.#proxy = proxy;
    this.#req = req;
    this.#res = res;
    this.#entry = entry;
    this.#target = target;
    this.#startedAt = startedAt;
    this.#generation = entry.generation;
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

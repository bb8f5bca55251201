// The proxy hot path: one Exchange object per request drives undici's low-level dispatch API,
// so bodies stream both ways chunk by chunk with backpressure and nothing is buffered.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { Pool, type Dispatcher } from 'undici';
import type { Logger } from '../core/logger.js';
import { proxyUpgrade, type UpgradeOwner } from './proxy-upgrade.js';
import type { RequestObserver, RequestRecord } from './request-record.js';
import { Exchange } from './proxy-exchange.js';
import type { RouteEntry, RouteHold, RouteTable, UpstreamTarget } from './route-table.js';
import { HOLD_EXPIRED, isLiveQueryStream, MAX_HELD_PER_PROJECT, NO_RELEASE, RETRY_AFTER_SECONDS } from './proxy-policy.js';

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
  forward(req: IncomingMessage, res: ServerResponse, entry: RouteEntry, startedAt: number = performance.now(), reroutes = 0): void {
    let hold = entry.hold;
    if (entry.target === null) {
      // An asleep route holds its requests while it wakes, like a migration window.
      if (entry.asleep) hold = this.#options.routes.wakeHold(entry);
      if (hold !== null && !hold.expired) return this.#park(req, res, entry, hold, startedAt, reroutes);
    }
    const target = this.#options.routes.acquire(entry);
    this.active++;
    const exchange = new Exchange(this, req, res, entry, target, startedAt, reroutes);
    if (target !== null && isLiveQueryStream(req)) exchange.countLiveStream(target);
    if (target !== null) exchange.dispatch(this.#dispatcher(target));
    else if (hold !== null) exchange.answerForSvc(HOLD_EXPIRED, RETRY_AFTER_SECONDS);
    else exchange.answerForSvc(NO_RELEASE);
  }

  /** Wait (request unread) until the project's hold ends, then forward; a client that leaves is forgotten. */
  #park(req: IncomingMessage, res: ServerResponse, entry: RouteEntry, hold: RouteHold, startedAt: number, reroutes: number): void {
    if (hold.waiters.size >= MAX_HELD_PER_PROJECT) return this.#heldOut(req, res, entry, startedAt);
    const socket = req.socket;
    const wake = (): void => {
      socket.off('close', gone);
      if (socket.destroyed) return;
      // Its hold ran out: the answer now, not a new wake hold for an asleep route.
      if (hold.expired) this.#heldOut(req, res, entry, startedAt);
      else this.forward(req, res, entry, startedAt, reroutes);
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

  /** An exchange let go of its request (its replaced target was stopped): forward it again. */
  reroute(req: IncomingMessage, res: ServerResponse, entry: RouteEntry, startedAt: number, reroutes: number): void {
    // Forwarded before leaving, so idle() never sees a moment with this request uncounted.
    this.forward(req, res, entry, startedAt, reroutes);
    this.#leave();
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

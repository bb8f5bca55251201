import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FeatureContext } from '../core/feature-context.js';
import { findProject } from '../projects/index.js';
import { MetricsRecorder } from './metrics-recorder.js';
import type { MetricsWindow, MetricsReport } from './metrics-series.js';
import { createMetricsStore, type MetricsStore } from './metrics-store.js';
import { platformHostNames } from './platform-hosts.js';
import { IngressProxy } from './proxy-request.js';
import type { RequestObserver, RequestRecord } from './request-record.js';
import { routeRequest, routeUpgrade } from './route-request.js';
import { RouteTable, type Upstream } from './route-table.js';

export interface IngressOptions {
  /** Flush interval of request metrics (default 5 s). */
  metricsFlushIntervalMs?: number;
  /** Connection check before switching to a new upstream (default 2 s). */
  probeTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** On close, how long running proxied requests may finish before they are cut (default 3 s). */
  closeGraceMs?: number;
  /** How long requests for an asleep route wait for it to wake (default 120 s). */
  wakeHoldMs?: number;
}

/** The ingress as the composition root and other features see it. */
export interface Ingress {
  /** Take the request if its Host is a project's and the path is not reserved (true = handled). */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** The same for an upgrade request (WebSocket): an app's is joined to its release (true = taken). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Host → project → active upstream; the release pipeline switches and drains through it. */
  routes: RouteTable;
  metrics: {
    /** Write buffered counts now (the metrics route calls this before reading). */
    flush(): void;
    /** Series and totals of a project for a window ending now. */
    query(projectId: string, window: MetricsWindow, options?: { releaseId?: string }): MetricsReport;
    /** Delete a project's metric rows (project deletion). */
    deleteProject(projectId: string): void;
  };
  /** Add an observer of finished requests (usage metering, canary samples); returns a remover. */
  onRequestComplete(observer: RequestObserver): () => void;
  /** Hand observers a request another process served (the ingress process's records). */
  report(record: RequestRecord): void;
  /**
   * Stop taking requests, let running ones finish for the grace period, then cut what is left
   * (long server-sent event streams would otherwise hold the server open), flush metrics and close
   * upstream connections. Run it alongside the HTTP server's close, before the database closes.
   */
  close(): Promise<void>;
}

/** A TCP connect check with a timeout (resolves once the upstream accepts a connection). */
function tcpProbe(timeoutMs: number): (upstream: Upstream) => Promise<void> {
  return (upstream) =>
    new Promise((resolve, reject) => {
      const socket = connect({ host: upstream.host, port: upstream.port });
      socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no connection within ${timeoutMs} ms`)));
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', reject);
    });
}

/**
 * Wire the ingress: route table (default domains `<slug>.<config.appDomain>`, projects looked up
 * lazily by slug, the platform's own hosts never routed), proxy, metrics recorder and store on the
 * control database.
 */
export function createIngress(ctx: FeatureContext, options: IngressOptions = {}): Ingress {
  const observers: RequestObserver[] = [];
  let proxy: IngressProxy | null = null;
  const routes = new RouteTable({
    baseDomain: ctx.config.appDomain,
    platformHosts: platformHostNames(ctx.config),
    lookupProject: (slugOrId) => {
      const row = findProject(ctx, slugOrId);
      return row && { id: row.id, slug: row.slug };
    },
    probe: tcpProbe(options.probeTimeoutMs ?? 2_000),
    onRetired: (target) => proxy?.retire(target),
    onDrainTimeout: (target) => proxy?.closeUpgrades(target),
    onWakeError: (error, projectId) => ctx.logger.error({ err: error, projectId }, 'a wake listener of the ingress failed'),
    ...(options.wakeHoldMs !== undefined ? { wakeHoldMs: options.wakeHoldMs } : {}),
  });
  proxy = new IngressProxy({
    routes,
    trustProxy: ctx.config.trustProxy,
    observers,
    logger: ctx.logger,
    ...(options.headersTimeoutMs !== undefined ? { headersTimeoutMs: options.headersTimeoutMs } : {}),
    ...(options.bodyTimeoutMs !== undefined ? { bodyTimeoutMs: options.bodyTimeoutMs } : {}),
  });
  const store: MetricsStore = createMetricsStore(ctx.db);
  const recorder = new MetricsRecorder(store, ctx.clock, {
    logger: ctx.logger,
    ...(options.metricsFlushIntervalMs !== undefined ? { flushIntervalMs: options.metricsFlushIntervalMs } : {}),
  });
  observers.push(recorder.record);
  recorder.start();
  const forward = proxy;
  let closing = false;

  return {
    handle(req, res) {
      return !closing && routeRequest(routes, forward, req, res);
    },
    upgrade(req, socket, head) {
      return !closing && routeUpgrade(routes, forward, req, socket, head);
    },
    routes,
    metrics: {
      flush: () => recorder.flush(),
      query: (projectId, window, queryOptions) => store.query(projectId, window, ctx.clock.now(), queryOptions),
      deleteProject: (projectId) => {
        recorder.flush();
        store.deleteProject(projectId);
      },
    },
    onRequestComplete(observer) {
      observers.push(observer);
      return () => {
        const at = observers.indexOf(observer);
        if (at !== -1) observers.splice(at, 1);
      };
    },
    report(record) {
      for (const observe of observers) {
        try {
          observe(record);
        } catch (error) {
          ctx.logger.error({ err: error }, 'ingress request observer failed');
        }
      }
    },
    async close() {
      if (closing) return;
      closing = true;
      // Held requests would otherwise keep their sockets (and the server) open until the hold runs out.
      routes.expireHolds();
      await forward.idle(options.closeGraceMs ?? 3_000);
      await forward.close();
      // Cut streams report their records on the responses' close events; let those run first.
      await forward.idle(1_000);
      recorder.close();
    },
  };
}

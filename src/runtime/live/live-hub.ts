// The subscription hub: one shared execution per (function, canonical args, partition),
// reruns only queries whose dependencies a commit touched, coalesced per tick, and
// broadcasts one pre-encoded frame per rerun to every subscriber.
import { performance } from 'node:perf_hooks';
import { canonicalJson } from '../canonical-json.js';
import { isExposedError } from '../errors.js';
import { liveKey } from './live-key.js';
import { DependencyIndex } from './dependency-index.js';
import { LiveConnection } from './live-connection.js';
import { LiveError } from './live-error.js';
import { resolveLiveOptions, type LiveOptions, type LiveOptionsInput } from './live-options.js';
import { LiveQueryState } from './live-query-state.js';
import type { CommitEvent, LiveErrorBody, LiveOpenRequest, LiveQuerySource, QueryRun } from './live-types.js';
import { HEARTBEAT_FRAME, encodeErrorFrame, encodeRetryFrame } from './sse-frames.js';

/** Turns a query's thrown error into the public error body (default: redact unless it has a string code). */
export type LiveErrorFormatter = (error: unknown) => { code: string; message: string };

/** Hub construction options. */
export interface LiveHubInit extends LiveOptionsInput {
  formatError?: LiveErrorFormatter;
}

/** Counters for tests and monitoring. */
export interface LiveHubStats {
  connections: number;
  queries: number;
  runs: number;
  broadcasts: number;
  slowConsumersDropped: number;
}

/** Live subscription hub over a query source (the runtime database + executor). */
export class LiveHub {
  readonly options: LiveOptions;
  private readonly queries = new Map<string, LiveQueryState>();
  private readonly connections = new Set<LiveConnection>();
  private readonly index = new DependencyIndex();
  private readonly dirty = new Set<LiveQueryState>();
  private flushScheduled = false;
  private readonly unsubscribe: () => void;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly formatError: LiveErrorFormatter;
  private readonly retryFrame: Buffer;
  private closedHub = false;
  private readonly counters = { runs: 0, broadcasts: 0, slowConsumersDropped: 0 };

  constructor(
    private readonly source: LiveQuerySource,
    init: LiveHubInit = {},
  ) {
    const { formatError, ...options } = init;
    this.options = resolveLiveOptions(options);
    this.formatError = formatError ?? defaultFormatError;
    this.retryFrame = encodeRetryFrame(this.options.retryMs);
    this.unsubscribe = source.onCommit((event) => this.onCommit(event));
    this.heartbeat = setInterval(() => this.beat(), this.options.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Current counters. */
  stats(): LiveHubStats {
    return { connections: this.connections.size, queries: this.queries.size, ...this.counters };
  }

  /**
   * Open a live stream. Throws LiveError SVC_LIVE_TOO_MANY_CONNECTIONS (503) or SVC_LIVE_BAD_ARGS (400).
   * The returned connection is pending: attach a sink (see live-response.ts / node-adapter.ts).
   */
  open(request: LiveOpenRequest): LiveConnection {
    if (this.closedHub) throw new LiveError('SVC_LIVE_SHUTDOWN', 503);
    if (this.connections.size >= this.options.maxConnections) throw new LiveError('SVC_LIVE_TOO_MANY_CONNECTIONS', 503);
    let canonical: string;
    try {
      canonical = canonicalJson(request.args ?? {});
    } catch (error) {
      throw new LiveError('SVC_LIVE_BAD_ARGS', 400, (error as Error).message);
    }
    const key = liveKey(request.path, canonical, request.partition ?? '');
    let query = this.queries.get(key);
    if (!query) {
      query = new LiveQueryState(key, request.path, JSON.parse(canonical), request.identity);
      this.queries.set(key, query);
      this.run(query);
      const status = (query.lastError as { status?: unknown } | null)?.status;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        // A first run rejected as a client error (unknown function, invalid arguments): an HTTP error, not a stream.
        this.dropQuery(query);
        throw query.lastError;
      }
    }
    const conn = new LiveConnection(key, this.options.maxQueueBytes, request.revalidate, (c) => this.detach(c));
    this.connections.add(conn);
    query.subscribers.add(conn);
    conn.send(this.retryFrame);
    // A full current snapshot for every new (or reconnecting) subscriber. If a rerun is pending, a changed
    // value follows right after; an unchanged one is not re-sent, so this frame must go out now.
    if (query.errorFrame) this.deliver(conn, query.errorFrame, null);
    else {
      const frame = query.snapshotFrame();
      if (frame) this.deliver(conn, frame, query.revision);
    }
    request.signal?.addEventListener('abort', () => conn.close(), { once: true });
    return conn;
  }

  /** Stop: end every stream with SVC_LIVE_SHUTDOWN (not fatal, so clients reconnect) and detach from commits. */
  close(): void {
    if (this.closedHub) return;
    this.closedHub = true;
    this.unsubscribe();
    clearInterval(this.heartbeat);
    const frame = encodeErrorFrame({ code: 'SVC_LIVE_SHUTDOWN', message: 'server shutting down', fatal: false });
    for (const conn of [...this.connections]) {
      conn.send(frame);
      conn.close();
    }
  }

  private onCommit(event: CommitEvent): void {
    if (this.closedHub) return;
    this.index.affected(event, this.queries.values(), (q) => {
      q.dirty = true;
      this.dirty.add(q);
    });
    if (this.dirty.size > 0 && !this.flushScheduled) {
      // Off the committing call's path; commits arriving in the same tick coalesce into one rerun.
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = [...this.dirty];
    this.dirty.clear();
    for (const q of batch) {
      q.dirty = false;
      if (this.queries.get(q.key) === q) this.run(q);
    }
  }

  private run(q: LiveQueryState): void {
    if (q.running) {
      q.rerun = true;
      return;
    }
    this.counters.runs++;
    let result: QueryRun | Promise<QueryRun>;
    try {
      result = this.source.runQuery(q.path, q.args, q.identity);
    } catch (error) {
      this.onError(q, error);
      return;
    }
    if (!isPromise(result)) {
      this.onResult(q, result);
      return;
    }
    q.running = true;
    result.then(
      (r) => this.afterAsync(q, () => this.onResult(q, r)),
      (e: unknown) => this.afterAsync(q, () => this.onError(q, e)),
    );
  }

  private afterAsync(q: LiveQueryState, apply: () => void): void {
    q.running = false;
    if (this.queries.get(q.key) !== q) return;
    apply();
    if (q.rerun) {
      q.rerun = false;
      this.run(q);
    }
  }

  private onResult(q: LiveQueryState, run: QueryRun): void {
    if (run.revision < q.revision) return; // never go backwards
    q.lastError = null;
    this.index.set(q, run.dependencies);
    let json: string;
    try {
      json = JSON.stringify(run.value) ?? 'null';
    } catch (error) {
      this.onError(q, error);
      return;
    }
    const frame = q.setValue(json, run.revision);
    if (!frame) return; // unchanged value: nothing to push
    if (frame.byteLength > this.options.maxPayloadBytes) {
      this.failAll(q, {
        code: 'SVC_LIVE_PAYLOAD_TOO_LARGE',
        message: `snapshot is ${frame.byteLength} bytes; limit ${this.options.maxPayloadBytes}`,
        fatal: true,
      });
      return;
    }
    this.broadcast(q, frame, run.revision);
  }

  private onError(q: LiveQueryState, error: unknown): void {
    q.lastError = error;
    const body: LiveErrorBody = { ...this.formatError(error), fatal: false };
    if (q.deps === null) this.index.set(q, null); // unknown dependencies: rerun on any commit
    const json = JSON.stringify(body);
    q.valueJson = null;
    if (json === q.errorJson) return;
    q.errorJson = json;
    q.errorFrame = encodeErrorFrame(body);
    this.broadcast(q, q.errorFrame, null);
  }

  private broadcast(q: LiveQueryState, frame: Buffer, revision: number | null): void {
    this.counters.broadcasts++;
    const seq = ++q.broadcastSeq;
    this.fanOut(q, seq, q.subscribers.values(), frame, revision);
  }

  /**
   * Deliver for at most fanoutSliceMs, then yield (setImmediate) so I/O such as incoming mutations is served.
   * A newer broadcast of the same query supersedes the rest of an older one: it goes to every subscriber anyway.
   */
  private fanOut(q: LiveQueryState, seq: number, rest: Iterator<LiveConnection>, frame: Buffer, revision: number | null): void {
    if (q.broadcastSeq !== seq) return;
    const deadline = performance.now() + this.options.fanoutSliceMs;
    for (let n = 1; ; n++) {
      const next = rest.next();
      if (next.done) return;
      this.deliver(next.value, frame, revision);
      if ((n & 63) === 0 && performance.now() > deadline) {
        setImmediate(() => this.fanOut(q, seq, rest, frame, revision));
        return;
      }
    }
  }

  /** Send a snapshot (revision) or an error frame (null); never an older or duplicate snapshot. */
  private deliver(conn: LiveConnection, frame: Buffer, revision: number | null): void {
    if (revision === null) {
      conn.afterError = true;
    } else {
      if (revision < conn.lastRevision || (revision === conn.lastRevision && !conn.afterError)) return;
      conn.lastRevision = revision;
      conn.afterError = false;
    }
    conn.send(frame);
  }

  private failAll(q: LiveQueryState, body: LiveErrorBody & { fatal: true }): void {
    for (const conn of [...q.subscribers]) conn.fail(body);
  }

  private beat(): void {
    for (const conn of this.connections) conn.send(HEARTBEAT_FRAME);
  }

  private detach(conn: LiveConnection): void {
    if (!this.connections.delete(conn)) return;
    if (conn.droppedSlow) this.counters.slowConsumersDropped++;
    const q = this.queries.get(conn.key);
    if (!q) return;
    q.subscribers.delete(conn);
    if (q.subscribers.size === 0) this.dropQuery(q);
  }

  private dropQuery(q: LiveQueryState): void {
    if (this.queries.get(q.key) === q) this.queries.delete(q.key);
    this.index.remove(q);
    this.dirty.delete(q);
  }
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** Exposed runtime errors keep their code and message; anything else is redacted. */
function defaultFormatError(error: unknown): { code: string; message: string } {
  if (isExposedError(error)) return { code: error.code, message: error.message };
  if (error instanceof LiveError) return { code: error.code, message: error.message };
  return { code: 'SVC_LIVE_QUERY_FAILED', message: 'internal error' };
}

// One live query on the client: streams snapshots over fetch, reconnects with backoff and
// Last-Event-ID, and exposes { data, loading, error, version } to listeners.
import type { EventSourceMessage } from 'eventsource-parser';
import { backoffDelay, type BackoffPolicy } from './backoff.js';
import { SvcClientError } from './client-error.js';
import { readSse } from './read-sse.js';
import { errorBodySchema, liveErrorSchema, snapshotSchema } from './wire.js';

/** Client-side state of a live query. */
export interface LiveState<T> {
  /** Latest value (the seed until the first snapshot arrives); undefined while nothing is known. */
  data: T | undefined;
  /** True until a value is available (seeded or streamed). */
  loading: boolean;
  /** The latest query or connection error; cleared by the next snapshot. */
  error: SvcClientError | null;
  /** Database revision of `data` (the SSE event id); null when unknown. */
  version: number | null;
}

/** How a subscription connects; built by createClient. */
export interface LiveTransport {
  url: string;
  fetch: typeof fetch;
  credentials: RequestCredentials;
  backoff: BackoffPolicy;
  /** Reconnect when nothing (not even a heartbeat) arrived for this long. */
  idleTimeoutMs: number;
  random: () => number;
}

/** Seed from server rendering. */
export interface LiveSeed<T> {
  initial?: T;
  initialVersion?: number;
}

/** A live query subscription. Starts streaming when created; call close() to stop. */
export class LiveSubscription<T = unknown> {
  private state: LiveState<T>;
  private readonly listeners = new Set<(state: LiveState<T>) => void>();
  private lastEventId: string | null = null;
  private closed = false;
  private fatal = false;
  private abort: AbortController | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly transport: LiveTransport,
    seed: LiveSeed<T> = {},
  ) {
    const seeded = seed.initial !== undefined;
    this.state = { data: seed.initial, loading: !seeded, error: null, version: seed.initialVersion ?? null };
    void this.run();
  }

  /** Current state (a new object after every change, so identity comparison works). */
  getState(): LiveState<T> {
    return this.state;
  }

  /** Listen to state changes; returns the unsubscribe function. */
  subscribe(listener: (state: LiveState<T>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stop streaming and reconnecting. */
  close(): void {
    this.closed = true;
    this.abort?.abort();
    this.wake?.();
  }

  private set(patch: Partial<LiveState<T>>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of [...this.listeners]) listener(this.state);
  }

  private async run(): Promise<void> {
    let attempt = 0;
    while (!this.closed && !this.fatal) {
      const abort = (this.abort = new AbortController());
      let idle: ReturnType<typeof setTimeout> | undefined;
      const touch = (): void => {
        clearTimeout(idle);
        idle = setTimeout(() => abort.abort(), this.transport.idleTimeoutMs);
      };
      try {
        touch();
        const headers: Record<string, string> = { accept: 'text/event-stream' };
        if (this.lastEventId !== null) headers['last-event-id'] = this.lastEventId;
        const response = await this.transport.fetch(this.transport.url, {
          headers,
          signal: abort.signal,
          credentials: this.transport.credentials,
          cache: 'no-store',
        });
        if (!response.ok || !response.body) {
          await this.onHttpError(response);
        } else {
          await readSse(
            response.body,
            (message) => {
              if (this.onMessage(message)) attempt = 0;
            },
            touch,
          );
        }
      } catch {
        // Network error, abort or idle timeout: fall through to reconnect.
      } finally {
        clearTimeout(idle);
      }
      if (this.closed || this.fatal) return;
      await this.sleep(backoffDelay(this.transport.backoff, attempt++, this.transport.random()));
    }
  }

  /** Returns true for an accepted snapshot. */
  private onMessage(message: EventSourceMessage): boolean {
    if (message.event === 'snapshot') {
      const parsed = snapshotSchema.safeParse(safeJson(message.data));
      if (!parsed.success) return false;
      const { value, revision } = parsed.data;
      // Never step back: a snapshot older than what we show (e.g. a newer server-rendered seed) is ignored.
      if (this.state.version !== null && revision < this.state.version) return false;
      if (message.id !== undefined) this.lastEventId = message.id;
      this.set({ data: value as T, loading: false, error: null, version: revision });
      return true;
    }
    if (message.event === 'error') {
      const parsed = liveErrorSchema.safeParse(safeJson(message.data));
      if (!parsed.success) return false;
      if (parsed.data.code === 'SVC_LIVE_SHUTDOWN') return false; // the stream ends; we reconnect
      if (parsed.data.fatal) {
        this.fatal = true;
        this.abort?.abort();
      }
      this.set({ error: new SvcClientError(parsed.data.code, parsed.data.message), loading: false });
    }
    return false;
  }

  private async onHttpError(response: Response): Promise<void> {
    const body = errorBodySchema.safeParse(safeJson(await response.text().catch(() => '')));
    const code = body.success ? body.data.error.code : 'SVC_CLIENT_HTTP';
    const message = body.success ? body.data.error.message : `HTTP ${response.status}`;
    const error = new SvcClientError(code, message, response.status);
    // Client errors (unknown function, bad arguments, signed out) will not fix themselves by retrying.
    const permanent = response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429;
    if (permanent) this.fatal = true;
    this.set({ error, loading: false });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { binIndex, emptyHistogram } from './latency-histogram.js';
import type { MetricsDelta, MetricsStore } from './metrics-store.js';
import type { RequestRecord } from './request-record.js';

const MINUTE = 60_000;
const PRUNE_EVERY_MS = 10 * MINUTE;
// Deltas kept for retry when the database refuses a flush; beyond this the oldest are dropped.
const MAX_PENDING = 100_000;

export interface MetricsRecorderOptions {
  /** How often in-memory counts are written to SQLite (default 5 s). */
  flushIntervalMs?: number;
  logger?: Logger;
}

/**
 * Aggregates request records in memory into per-minute deltas per project release and writes
 * them to the store in one transaction every few seconds and on close — never a write per request.
 */
export class MetricsRecorder {
  readonly #store: MetricsStore;
  readonly #clock: Clock;
  readonly #options: MetricsRecorderOptions;
  // projectId → releaseId ('' = none) → delta of the current minute
  readonly #current = new Map<string, Map<string, MetricsDelta>>();
  #sealed: MetricsDelta[] = [];
  #timer: NodeJS.Timeout | null = null;
  #lastPrune = -Infinity;

  constructor(store: MetricsStore, clock: Clock, options: MetricsRecorderOptions = {}) {
    this.#store = store;
    this.#clock = clock;
    this.#options = options;
  }

  /** Count one finished request (an observer; O(1), no allocation except at a minute boundary). */
  readonly record = (r: RequestRecord): void => {
    const minute = Math.floor((r.endedAt ?? this.#clock.now()) / MINUTE) * MINUTE;
    let byRelease = this.#current.get(r.projectId);
    if (byRelease === undefined) {
      byRelease = new Map();
      this.#current.set(r.projectId, byRelease);
    }
    const releaseId = r.releaseId ?? '';
    let d = byRelease.get(releaseId);
    if (d === undefined || d.bucket !== minute) {
      if (d !== undefined) this.#sealed.push(d);
      d = {
        projectId: r.projectId,
        releaseId,
        bucket: minute,
        requests: 0,
        errors: 0,
        platform: 0,
        clientErrors: 0,
        aborted: 0,
        bytes: 0,
        latencySumMs: 0,
        histogram: emptyHistogram(),
      };
      byRelease.set(releaseId, d);
    }
    d.requests++;
    if (r.platform === true) d.platform++;
    else if (r.status >= 500 || r.streamError) d.errors++;
    else if (r.status >= 400) d.clientErrors++;
    if (r.aborted) d.aborted++;
    d.bytes += r.bytes;
    d.latencySumMs += r.latencyMs;
    d.histogram[binIndex(r.latencyMs)]!++;
  };

  /** Write everything counted so far in one transaction (kept for the next flush if it fails). */
  flush(): void {
    const deltas = this.#sealed;
    this.#sealed = [];
    for (const byRelease of this.#current.values()) for (const d of byRelease.values()) deltas.push(d);
    this.#current.clear();
    const now = this.#clock.now();
    try {
      this.#store.write(deltas);
      if (now - this.#lastPrune >= PRUNE_EVERY_MS) {
        this.#store.prune(now);
        this.#lastPrune = now;
      }
    } catch (error) {
      this.#options.logger?.warn({ err: error, deltas: deltas.length }, 'ingress metrics flush failed; will retry');
      this.#sealed = deltas.concat(this.#sealed).slice(-MAX_PENDING);
    }
  }

  /** Flush periodically (the timer does not keep the process alive). */
  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => this.flush(), this.#options.flushIntervalMs ?? 5_000);
    this.#timer.unref();
  }

  /** Stop the timer and flush what is left. */
  close(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.flush();
  }
}

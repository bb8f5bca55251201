import type { KeyObject } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import type { ControlDb } from '../../core/control-db.js';
import { SvcError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { backoffMs } from '../../core/retry-policy.js';
import { canonicalEvent } from './canonical-event.js';
import { signExportEntry, type AuditExportEntry } from './export-entry.js';
import {
  auditRowsAfter,
  insertEntries,
  pendingCount,
  pendingEntries,
  readExportState,
  recordAck,
  recordError,
  recordFailure,
  signedHead,
} from './outbox-store.js';

/** Time between export passes when SVC_AUDIT_EXPORT_INTERVAL_MS is unset. */
export const DEFAULT_EXPORT_INTERVAL_MS = 5000;

/** Receives one ordered batch; resolving acknowledges it. Must deduplicate by sequence and digest. */
export type AuditExportDestination = (entries: AuditExportEntry[], signal: AbortSignal) => Promise<void>;

/** Schedules `fn` after `ms`; returns a cancel function (injected so tests drive time). */
export type ScheduleTimer = (fn: () => void, ms: number) => () => void;

export interface AuditExporterOptions {
  db: ControlDb;
  clock: Clock;
  privateKey: KeyObject;
  keyId: string;
  destination: AuditExportDestination;
  /** Entries per signing transaction and per delivered batch (default 500). */
  batchSize?: number;
  /** Poll interval of the loop (default 5 s). */
  intervalMs?: number;
  /** Longest backoff after repeated failures (default 5 min). */
  maxBackoffMs?: number;
  /** Longest a destination call may take before it is aborted (default 30 s). */
  deliveryTimeoutMs?: number;
  schedule?: ScheduleTimer;
  logger?: Logger;
}

/** What one pass did. */
export interface ExportPassResult {
  signed: number;
  delivered: number;
  /** Delivery failed (will be retried with the same entries after backoff). */
  deliveryError?: string;
}

export interface AuditExporter {
  /** Sign new audit events into the outbox, then deliver due batches. Throws SVC_AUDIT_EXPORT_NONCONTIGUOUS on a gap. */
  runOnce(options?: { ignoreBackoff?: boolean; signal?: AbortSignal }): Promise<ExportPassResult>;
  /** Start the polling loop. */
  start(): void;
  /** Stop the loop and wait for a running pass. */
  stop(): Promise<void>;
  readonly keyId: string;
}

/**
 * Delivery backoff after a failure that follows `attempts` earlier ones: 1 s, 2 s, 4 s … capped (svc's
 * retry policy). No jitter: one exporter delivers, and the status route shows the next attempt. Pure.
 */
export function exportBackoffMs(attempts: number, maxMs: number): number {
  return backoffMs({ baseMs: 1000, capMs: maxMs, jitter: 0 }, Math.max(0, attempts) + 1, 1);
}

const defaultSchedule: ScheduleTimer = (fn, ms) => {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/** The audit export loop: signs into the durable outbox before any delivery. */
export function createAuditExporter(options: AuditExporterOptions): AuditExporter {
  const { db, clock, privateKey, keyId, destination } = options;
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519')
    throw new SvcError('SVC_AUDIT_EXPORT_CONFIG', 'The audit export key must be an Ed25519 private key.');
  const batchSize = options.batchSize ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 300_000;
  const schedule = options.schedule ?? defaultSchedule;
  let cancel: (() => void) | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;
  let stopController = new AbortController();
  let gapMessage: string | undefined;

  const signBatch = db.transaction((): number => {
    readExportState(db);
    const head = signedHead(db);
    const rows = auditRowsAfter(db, head.sequence, batchSize);
    const entries: AuditExportEntry[] = [];
    let previous = head;
    for (const row of rows) {
      if (row.seq !== previous.sequence + 1) {
        insertEntries(db, entries, clock.now());
        gapMessage = `Audit id ${row.seq} follows ${previous.sequence}: the audit log is not contiguous.`;
        return -entries.length - 1; // negative: a gap was hit after this many entries
      }
      const entry = signExportEntry({ sequence: row.seq, event: canonicalEvent(row), previousDigest: previous.digest, keyId, privateKey });
      entries.push(entry);
      previous = { sequence: entry.sequence, digest: entry.digest };
    }
    insertEntries(db, entries, clock.now());
    return entries.length;
  });

  async function deliver(ignoreBackoff: boolean, signal?: AbortSignal): Promise<{ delivered: number; error?: string }> {
    let delivered = 0;
    for (;;) {
      const state = readExportState(db);
      if (!ignoreBackoff && state.next_attempt_at !== null && state.next_attempt_at > clock.now()) return { delivered };
      const batch = pendingEntries(db, state.checkpoint_sequence, batchSize);
      if (batch.length === 0) return { delivered };
      const timeout = AbortSignal.timeout(options.deliveryTimeoutMs ?? 30_000);
      const callSignal = AbortSignal.any([timeout, stopController.signal, ...(signal ? [signal] : [])]);
      try {
        await destination(batch, callSignal);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const now = clock.now();
        recordFailure(db, message, now, now + exportBackoffMs(state.attempts, maxBackoffMs));
        options.logger?.warn({ err: message }, 'audit export delivery failed');
        return { delivered, error: message };
      }
      const last = batch[batch.length - 1]!;
      recordAck(db, { sequence: last.sequence, digest: last.digest }, clock.now());
      delivered += batch.length;
      ignoreBackoff = true;
    }
  }

  // Passes never overlap (the loop and a manual run share one queue), so a batch is not sent twice at once.
  let queue: Promise<unknown> = Promise.resolve();
  function runOnce(runOptions: { ignoreBackoff?: boolean; signal?: AbortSignal } = {}): Promise<ExportPassResult> {
    const next = queue.then(() => pass(runOptions));
    queue = next.catch(() => undefined);
    return next;
  }

  async function pass(runOptions: { ignoreBackoff?: boolean; signal?: AbortSignal }): Promise<ExportPassResult> {
    let signed = 0;
    let gap = false;
    for (;;) {
      const n = signBatch();
      if (n < 0) {
        signed += -n - 1;
        gap = true;
        break;
      }
      signed += n;
      if (n < batchSize) break;
    }
    if (!gap) recordErrorIfGapCleared();
    const result = await deliver(runOptions.ignoreBackoff ?? false, runOptions.signal);
    if (gap) {
      const message = gapMessage ?? 'The audit log is not contiguous.';
      recordError(db, message); // after delivery: an ack of the entries before the gap must not clear it
      throw new SvcError('SVC_AUDIT_EXPORT_NONCONTIGUOUS', message);
    }
    return { signed, delivered: result.delivered, ...(result.error === undefined ? {} : { deliveryError: result.error }) };
  }

  function recordErrorIfGapCleared(): void {
    const state = readExportState(db);
    if (state.last_error?.startsWith('Audit id ')) recordError(db, null);
  }

  function loop(): void {
    if (stopped) return;
    running = runOnce()
      .catch((error: unknown) => options.logger?.error({ err: error instanceof Error ? error.message : String(error) }, 'audit export pass failed'))
      .finally(() => {
        running = undefined;
        if (!stopped) cancel = schedule(loop, options.intervalMs ?? DEFAULT_EXPORT_INTERVAL_MS);
      });
  }

  return {
    keyId,
    runOnce,
    start() {
      if (!stopped) return;
      stopped = false;
      stopController = new AbortController();
      cancel = schedule(loop, 0);
    },
    async stop() {
      stopped = true;
      cancel?.();
      stopController.abort();
      await running;
    },
  };
}

/** Status for the admin route, read from the store only (works with the option removed). */
export function auditExportStatus(db: ControlDb, configured: { keyId: string } | undefined) {
  const state = readExportState(db);
  const head = db.prepare('SELECT MAX(sequence) AS s FROM audit_export_outbox').get() as { s: number | null };
  const audit = db.prepare('SELECT MAX(seq) AS s FROM audit_events').get() as { s: number | null };
  return {
    configured: configured !== undefined,
    keyId: configured?.keyId ?? null,
    checkpoint: { sequence: state.checkpoint_sequence, digest: state.checkpoint_digest },
    signedThrough: head.s ?? 0,
    auditThrough: audit.s ?? 0,
    pending: pendingCount(db, state.checkpoint_sequence),
    attempts: state.attempts,
    lastError: state.last_error,
    lastAttemptAt: state.last_attempt_at,
    lastSuccessAt: state.last_success_at,
    nextAttemptAt: state.next_attempt_at,
  };
}

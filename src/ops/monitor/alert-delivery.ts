import type { Clock } from '../../core/clock.js';
import type { ControlDb } from '../../core/control-db.js';
import { backoffMs } from '../../core/retry-policy.js';
import { claimDueNotifications, recordAttempt, type OperationalAlert } from './incident-store.js';

/** The operator's callback; must honour `signal` (aborted on timeout or shutdown). */
export type NotifyAlert = (alert: OperationalAlert, signal: AbortSignal) => Promise<void>;

/**
 * Backoff after `attempts` failures: 1 s, 2 s, 4 s … capped (svc's retry policy). No jitter: each
 * notification has one sender, and operators read the schedule in the overview. Pure.
 */
export function alertBackoffMs(attempts: number, maxMs: number): number {
  return backoffMs({ baseMs: 1000, capMs: maxMs, jitter: 0 }, attempts, 1);
}

export interface DeliverOptions {
  db: ControlDb;
  clock: Clock;
  notify: NotifyAlert;
  leaseMs: number;
  maxBackoffMs: number;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Most notifications handled in one call. */
  limit?: number;
}

/**
 * Deliver due notifications one at a time (leased, so two passes never send the same one at
 * once; an expired lease is taken over: at-least-once). Resolutions wait for their opening.
 */
export async function deliverDueAlerts(options: DeliverOptions): Promise<{ delivered: number; failed: number }> {
  let delivered = 0;
  let failed = 0;
  const limit = options.limit ?? 100;
  for (let round = 0; round < 10 && delivered + failed < limit; round++) {
    const due = claimDueNotifications(options.db, options.clock.now(), options.leaseMs, limit - delivered - failed);
    if (due.length === 0) break;
    let progressed = false;
    for (const row of due) {
      if (options.signal?.aborted) return { delivered, failed };
      const startedAt = options.clock.now();
      const signal = AbortSignal.any([AbortSignal.timeout(Math.min(options.timeoutMs, options.leaseMs)), ...(options.signal ? [options.signal] : [])]);
      try {
        await options.notify(JSON.parse(row.payload) as OperationalAlert, signal);
        recordAttempt(options.db, row, startedAt, { ok: true, now: options.clock.now() });
        delivered++;
        progressed = true;
      } catch (error) {
        const now = options.clock.now();
        recordAttempt(options.db, row, startedAt, {
          ok: false,
          error: error instanceof Error ? error.message : String(error),
          nextAttemptAt: now + alertBackoffMs(row.attempts + 1, options.maxBackoffMs),
        });
        failed++;
      }
    }
    // Another round only if an opening was delivered (its resolution may now be due).
    if (!progressed) break;
  }
  return { delivered, failed };
}

// The garbage ledger: provider deletions are recorded in the catalog (in the same transaction that removes
// visibility) and executed afterwards; failures are retried with backoff across sweeps and restarts.
import { backoffMs } from '../../core/retry-policy.js';
import type { Catalog } from './catalog.js';
import type { StorageBackend } from './storage-backend.js';

/** Outcome of one pass over the ledger. */
export interface GarbageReport {
  readonly deleted: number;
  readonly failed: number;
  readonly pending: number;
}

/** Delay after the failure that follows `attempts` earlier ones (1 s doubling, at most one hour). */
export function retryDelayMs(attempts: number): number {
  // No jitter: one sweeper retries each entry, and the schedule survives restarts in the catalog.
  return backoffMs({ baseMs: 1000, capMs: 60 * 60 * 1000, jitter: 0 }, attempts + 1, 1);
}

/** Execute due ledger entries; never deletes a storage key an object still points at. */
export async function collectGarbage(catalog: Catalog, backend: StorageBackend, now: () => number, limit = 100): Promise<GarbageReport> {
  let deleted = 0;
  let failed = 0;
  for (const entry of catalog.dueGarbage(now(), limit)) {
    try {
      if (entry.kind === 'staging') await backend.abortStaging(entry.ref);
      else if (!catalog.isLive(entry.ref)) await backend.delete(entry.ref);
      catalog.garbageDone(entry.id);
      deleted += 1;
    } catch (error) {
      catalog.garbageFailed(entry.id, (error as Error).message ?? String(error), now() + retryDelayMs(entry.attempts));
      failed += 1;
    }
  }
  return { deleted, failed, pending: catalog.garbageCount() };
}

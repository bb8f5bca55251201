// Sweeps: at startup and before every new reservation — catalog file check, expired reservations (quota
// released, staging to the ledger), due ledger entries; orphaned staging areas at startup and periodically.
import type { Catalog } from './catalog.js';
import { collectGarbage, type GarbageReport } from './garbage-ledger.js';
import type { StorageBackend } from './storage-backend.js';

/** What a sweep did. */
export interface SweepReport {
  readonly expired: number;
  readonly orphans: number;
  readonly garbage: GarbageReport;
}

/** Options of sweep. */
export interface SweepOptions {
  /** Also look for staging areas no reservation refers to (lists the provider; default false). */
  orphans?: boolean;
  /** Orphans younger than this are left alone (a reservation may be about to record them). */
  orphanGraceMs?: number;
}

/** Expire reservations, collect orphans (optionally) and run the garbage ledger. */
export async function sweep(catalog: Catalog, backend: StorageBackend, now: () => number, options: SweepOptions = {}): Promise<SweepReport> {
  catalog.checkFile();
  let expired = 0;
  const at = now();
  for (const row of catalog.expiredReservations(at)) {
    catalog.transaction(() => {
      if (!catalog.deleteReservation(row.id)) return;
      if (row.stagingState !== null) catalog.addGarbage('staging', row.stagingState, at);
      catalog.addGarbage('object', row.storageKey, at);
      expired += 1;
    });
  }
  let orphans = 0;
  if (options.orphans === true) {
    const refs = catalog.reservationRefs();
    const grace = options.orphanGraceMs ?? 60 * 60 * 1000;
    for (const entry of await backend.listStaging()) {
      if (refs.stagingIds.has(entry.id) || entry.createdAt > at - grace) continue;
      catalog.transaction(() => catalog.addGarbage('staging', entry.state, at));
      orphans += 1;
    }
  }
  const garbage = await collectGarbage(catalog, backend, now);
  return { expired, orphans, garbage };
}

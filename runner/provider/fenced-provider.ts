// Wraps any provider with the fence store: stale work is rejected before it runs, a committed
// operation delivered again is acknowledged without running it twice.
import type { DeploymentProvider, ReconcileRequest } from './provider-contract.js';
import type { FenceStore } from './fence-store.js';

/** A provider that enforces rules 1–2 of the correctness contract around `inner`. */
export function fencedProvider(inner: DeploymentProvider, fences: FenceStore): DeploymentProvider {
  return {
    kind: inner.kind,
    async reconcile(request: ReconcileRequest): Promise<void> {
      if (fences.begin(request) === 'duplicate') return;
      await inner.reconcile(request);
      fences.commit(request);
    },
  };
}

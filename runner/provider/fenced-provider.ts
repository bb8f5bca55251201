// Wraps any provider with the fence store: stale work is rejected before it runs, a committed
// operation delivered again is acknowledged without running it twice, and one project's requests
// run one at a time (a retry arriving while the first delivery still runs waits for it).
import type { DeploymentProvider, ReconcileRequest } from './provider-contract.js';
import type { FenceStore } from './fence-store.js';

/** A provider that enforces rules 1–2 of the correctness contract around `inner`. */
export function fencedProvider(inner: DeploymentProvider, fences: FenceStore): DeploymentProvider {
  const queues = new Map<string, Promise<unknown>>();
  return {
    kind: inner.kind,
    ...(inner.supportsCanary ? { supportsCanary: true } : {}),
    ...(inner.running ? { running: (signal?: AbortSignal) => inner.running!(signal) } : {}),
    ...(inner.routed ? { routed: (projectId: string, generation: number) => inner.routed!(projectId, generation) } : {}),
    async reconcile(request: ReconcileRequest): Promise<void> {
      const projectId = request.operation.projectId;
      const previous = queues.get(projectId) ?? Promise.resolve();
      const run = previous
        .catch(() => undefined)
        .then(async () => {
          if (fences.begin(request) === 'duplicate') return;
          await inner.reconcile(request);
          fences.commit(request);
        });
      queues.set(projectId, run);
      try {
        await run;
      } finally {
        if (queues.get(projectId) === run) queues.delete(projectId);
      }
    },
  };
}

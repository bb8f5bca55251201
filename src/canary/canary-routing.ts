// The canary seam over the ingress route table: `RouteEntry.canary` splits a deterministic 100-request
// cycle (route-table.ts); each stage bumps the route generation so completions of requests dispatched
// in an earlier stage can be told apart (the proxy records the generation at dispatch).
import type { Dispatcher } from 'undici';
import { SvcError } from '../core/errors.js';
import type { RouteTable, UpstreamTarget } from '../ingress/index.js';
import type { CanaryCandidate, CanaryRouting } from './canary-controller.js';

/** A fresh upstream target for the candidate (the ingress proxy creates its pool lazily). */
function candidateTarget(candidate: CanaryCandidate): UpstreamTarget {
  const host = candidate.host.includes(':') ? `[${candidate.host}]` : candidate.host;
  return {
    host: candidate.host,
    port: candidate.port,
    origin: `http://${host}:${candidate.port}`,
    releaseId: candidate.releaseId,
    inFlight: 0,
    liveStreams: 0,
    routed: true,
    dispatcher: null,
    waiters: null,
  };
}

/** Canary routing on the ingress route table. */
export function routeTableCanaryRouting(routes: RouteTable): CanaryRouting {
  return {
    split(projectId, candidate, percent) {
      const entry = routes.get(projectId);
      if (!entry || entry.target === null) throw new SvcError('SVC_CANARY_CRITERIA_FAILED', `Project ${projectId} has no routed baseline release.`);
      const current = entry.canary;
      const same =
        current !== null &&
        current.target.host === candidate.host &&
        current.target.port === candidate.port &&
        current.target.releaseId === candidate.releaseId;
      entry.generation++;
      entry.canary = { target: same ? current.target : candidateTarget(candidate), percent, position: same ? current.position : 0 };
      return entry.generation;
    },
    async clear(projectId, drainMs) {
      const entry = routes.get(projectId);
      const canary = entry?.canary ?? null;
      if (!entry || canary === null) return;
      entry.canary = null;
      entry.generation++;
      const target = canary.target;
      target.routed = false;
      await routes.drain(target, drainMs);
      // Drained: nothing will retire it through the route table, so close its pool here.
      if (target.inFlight === 0 && target.dispatcher !== null) {
        const pool = target.dispatcher as Dispatcher;
        target.dispatcher = null;
        void pool.close().catch(() => undefined);
      }
    },
  };
}

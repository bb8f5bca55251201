// Ingress routes of placed projects: the node reports where the app of each project listens (in its
// observations and heartbeats); the control plane routes the project's hosts there through the release
// listener (src/releases → the ingress route table), and unroutes it when the node reports it stopped,
// stops reporting it, goes offline, or the project is placed elsewhere. Routes live in memory: after a
// control-plane restart the node's next heartbeat (a third of SVC_NODE_LEASE_MS) routes it again.
import { getNode, getPlacement, type NodeRow } from './node-store.js';
import { nodeStatus } from './node-status.js';
import type { NodesContext } from './nodes-context.js';
import { decideNodeRoute, heldRoute, routeStillValid, type NodeProjectReport, type NodeRoute } from './route-decisions.js';

/** The routes of placed projects. */
export interface NodeRouting {
  /** Apply reports of `node`; with `complete`, projects it routed but no longer reports are unrouted. */
  report(node: Pick<NodeRow, 'id'>, reports: readonly NodeProjectReport[], options?: { complete?: boolean }): Promise<void>;
  /** Hold the project's requests for its node's stop-first cutover (resolves once held and drained). */
  hold(node: Pick<NodeRow, 'id'>, projectId: string): Promise<void>;
  /** The node's cutover failed: its next report routes the project again, whatever its generation. */
  releaseHold(projectId: string): Promise<void>;
  /** Unroute projects whose node went offline or that were placed elsewhere. */
  sweep(): Promise<void>;
  /** Unroute one project now (moved or deleted). */
  forget(projectId: string): Promise<void>;
  /** The route of a project, if any (tests, status). */
  get(projectId: string): NodeRoute | undefined;
}

/** Create the routing of placed projects (one queue per project, so reports apply in order). */
export function createNodeRouting(n: NodesContext): NodeRouting {
  const routes = new Map<string, NodeRoute>();
  const queues = new Map<string, Promise<void>>();
  const { ctx } = n;

  const serial = (projectId: string, work: () => Promise<void>): Promise<void> => {
    const run = (queues.get(projectId) ?? Promise.resolve()).then(work).catch((error: unknown) => {
      // The route stays as it was; the next heartbeat tries again.
      ctx.logger.warn({ err: error, projectId }, 'could not route a placed project');
    });
    queues.set(projectId, run);
    void run.finally(() => queues.get(projectId) === run && queues.delete(projectId));
    return run;
  };

  const apply = async (projectId: string, route: NodeRoute): Promise<void> => {
    await n.releases.route({ projectId, releaseId: route.releaseId, upstream: route.upstream });
    // Unrouted projects stay known with their generation, so a late older report cannot route them again.
    routes.set(projectId, route);
  };

  const unroute = (projectId: string): Promise<void> =>
    serial(projectId, async () => {
      const current = routes.get(projectId);
      if (current?.upstream) await apply(projectId, { ...current, releaseId: null, upstream: null });
    });

  return {
    async report(node, reports, options = {}) {
      const seen = new Set<string>();
      const work = reports.map((report) => {
        seen.add(report.projectId);
        return serial(report.projectId, async () => {
          const decision = decideNodeRoute(routes.get(report.projectId), report, node.id, getPlacement(ctx.db, report.projectId)?.node_id, ctx.clock.now());
          if (decision.kind === 'record') routes.set(report.projectId, decision.route);
          if (decision.kind === 'set') await apply(report.projectId, decision.route);
        });
      });
      if (options.complete) for (const [projectId, route] of routes) if (route.nodeId === node.id && !seen.has(projectId)) work.push(unroute(projectId));
      await Promise.all(work);
    },
    async hold(node, projectId) {
      let failure: unknown;
      await serial(projectId, async () => {
        try {
          await n.releases.route({ projectId, releaseId: null, upstream: null, hold: true });
          routes.set(projectId, heldRoute(routes.get(projectId), node.id, ctx.clock.now(), n.settings.holdMs));
        } catch (error) {
          failure = error;
        }
      });
      // The node must know: without the hold its cutover would fail requests.
      if (failure) throw failure;
    },
    releaseHold: (projectId) =>
      serial(projectId, async () => {
        const current = routes.get(projectId);
        if (current?.heldUntil !== undefined)
          routes.set(projectId, { nodeId: current.nodeId, generation: current.generation, releaseId: null, upstream: null });
      }),
    async sweep() {
      const now = ctx.clock.now();
      const work: Promise<void>[] = [];
      for (const [projectId, route] of routes) {
        const node = getNode(ctx.db, route.nodeId);
        const status = node ? nodeStatus({ draining: node.draining === 1, lastSeenAt: node.last_seen_at }, now, n.settings.nodeLeaseMs) : undefined;
        if (!routeStillValid(route, getPlacement(ctx.db, projectId)?.node_id, status)) work.push(unroute(projectId));
      }
      await Promise.all(work);
    },
    forget: unroute,
    get: (projectId) => routes.get(projectId),
  };
}

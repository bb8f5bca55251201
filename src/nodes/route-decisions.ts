// Pure: how a placed project's ingress route follows what its node reports it runs. A report only
// counts from the node the project is placed on, never moves the route back to an older generation,
// and routes nothing unless the node says the release runs and where it listens.
import type { NodeUpstream } from './node-upstream.js';

/** What a node reports about one of its projects (heartbeat or observation). */
export interface NodeProjectReport {
  projectId: string;
  generation: number;
  state: 'running' | 'stopped';
  releaseId: string | null;
  /** Where the app listens as the node advertises it; null when nothing listens. */
  upstream: NodeUpstream | null;
  /** A canary candidate staged beside this release (never routed from here: the canary splits traffic to it). */
  canary?: { generation: number; releaseId: string; upstream: NodeUpstream | null } | undefined;
}

/** The route the control plane set for a placed project. */
export interface NodeRoute {
  nodeId: string;
  generation: number;
  releaseId: string | null;
  upstream: NodeUpstream | null;
  /**
   * Set while the ingress holds the project's requests for the node's stop-first cutover (clock ms):
   * until then only a newer generation (the cutover's own observation) or an explicit release moves it.
   */
  heldUntil?: number;
}

/** `keep` the route as it is, `record` a newer generation with the same target, or `set` it (upstream null: unroute). */
export type RouteDecision = { kind: 'keep' } | { kind: 'record'; route: NodeRoute } | { kind: 'set'; route: NodeRoute };

/** Decide the route after a report of `nodeId` for a project placed on `placedNodeId`. */
export function decideNodeRoute(
  current: NodeRoute | undefined,
  report: NodeProjectReport,
  nodeId: string,
  placedNodeId: string | undefined,
  now = 0,
): RouteDecision {
  if (placedNodeId !== nodeId) return { kind: 'keep' };
  if (current && current.nodeId === nodeId && report.generation < current.generation) return { kind: 'keep' };
  // A report of the generation being replaced (e.g. a heartbeat sent before the writer stopped) must not end the hold.
  if (current?.heldUntil !== undefined && now < current.heldUntil && report.generation <= current.generation) return { kind: 'keep' };
  const serving = report.state === 'running' && report.releaseId !== null && report.upstream !== null;
  const route: NodeRoute = { nodeId, generation: report.generation, releaseId: serving ? report.releaseId : null, upstream: serving ? report.upstream : null };
  // Nothing routed and nothing to route: remember the generation only (a late older report stays ignored).
  if (!current && route.upstream === null) return { kind: 'record', route };
  if (current && sameTarget(current, route)) return current.generation === route.generation ? { kind: 'keep' } : { kind: 'record', route };
  return { kind: 'set', route };
}

/** The route while the ingress holds the project's requests (bounded by `holdMs`). */
export function heldRoute(current: NodeRoute | undefined, nodeId: string, now: number, holdMs: number): NodeRoute {
  return { nodeId, generation: current?.nodeId === nodeId ? current.generation : 0, releaseId: null, upstream: null, heldUntil: now + holdMs };
}

/** Unroute when the project's node went offline or the project now lives elsewhere (or nowhere). */
export function routeStillValid(route: NodeRoute, placedNodeId: string | undefined, nodeStatus: 'ready' | 'draining' | 'offline' | undefined): boolean {
  return route.upstream === null || (placedNodeId === route.nodeId && nodeStatus !== undefined && nodeStatus !== 'offline');
}

function sameTarget(a: NodeRoute, b: NodeRoute): boolean {
  return a.nodeId === b.nodeId && a.releaseId === b.releaseId && a.upstream?.host === b.upstream?.host && a.upstream?.port === b.upstream?.port;
}

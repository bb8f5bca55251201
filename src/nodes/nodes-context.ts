// What the node services share: the feature context, settings, the artifact store, the release
// listener, the ingress routes of placed projects and the waiters of generation outcomes.
import type { NodeCanaries } from './node-canaries.js';
import type { FeatureContext } from '../core/feature-context.js';
import type { GenerationWaiters } from './generation-waiters.js';
import type { NodeArtifactStore } from './node-artifacts.js';
import type { NodeSettings } from './node-settings.js';
import type { NodeUpstream } from './node-upstream.js';

/**
 * How releases learn what nodes did (src/releases implements it; wired by src/platform.ts so src/nodes
 * never calls into the release pipeline). src/nodes only records a node's report; the release settles
 * in the pipeline's own transaction.
 */
export interface NodeReleaseListener {
  /**
   * The operation of a running generation settled (observed, failed or superseded). Called after the
   * SQLite transaction of the change ended (see `notifySettled`); the receiver reads the outcome again.
   */
  settled(input: { projectId: string; generation: number }): void;
  /**
   * Route the project's ingress to the app its node runs (null: nothing to route) and let the previous
   * target drain. With `hold` (upstream null) the ingress holds the project's new requests instead
   * (stop-first cutover on the node) until the next route. Resolves once switched (or held) and
   * drained; throws when the upstream refuses connections (the route is then unchanged).
   */
  route(input: { projectId: string; releaseId: string | null; upstream: NodeUpstream | null; hold?: boolean }): Promise<void>;
}

/**
 * Tell the listener that a running generation settled, once the writer's transaction has ended
 * (better-sqlite3 transactions are synchronous, so a microtask runs after the outermost one). The
 * receiver reads the operation again: a change that rolled back settles nothing.
 */
export function notifySettled(n: NodesContext, op: { project_id: string; generation: number; state: string; release_id: string | null }): void {
  n.waiters.wake(op.project_id);
  if (op.state !== 'running' || !op.release_id) return;
  queueMicrotask(() => n.releases.settled({ projectId: op.project_id, generation: op.generation }));
}

/** The bundle every node service receives. */
export interface NodesContext {
  ctx: FeatureContext;
  settings: NodeSettings;
  artifacts: NodeArtifactStore;
  /** Where releases learn what nodes did. */
  releases: NodeReleaseListener;
  /** Woken whenever an operation settles (observed, failed or superseded). */
  waiters: GenerationWaiters;
  /** Canary candidates nodes report beside a baseline. */
  canaries: NodeCanaries;
}

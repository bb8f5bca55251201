// What the node services share: the feature context, settings, the artifact store, the release
// listener, the ingress routes of placed projects and the waiters of generation outcomes.
import type { FeatureContext } from '../core/feature-context.js';
import type { GenerationWaiters } from './generation-waiters.js';
import type { NodeArtifactStore } from './node-artifacts.js';
import type { NodeSettings } from './node-settings.js';

/** Where a placed project's active app listens, as its node advertises it (reachable from the control plane). */
export interface NodeUpstream {
  host: string;
  port: number;
}

/**
 * How releases learn what nodes did (src/releases implements it; wired by src/platform.ts so src/nodes
 * never calls into the release transaction). `observed`/`failed` are called inside the SQLite
 * transaction of the change.
 */
export interface NodeReleaseListener {
  /** A running generation of this release was observed by its node. */
  observed(input: { projectId: string; releaseId: string; generation: number }): void;
  /** The operation of this release failed (stable code) or was superseded before it was observed. */
  failed(input: { projectId: string; releaseId: string; code: string }): void;
  /**
   * Route the project's ingress to the app its node runs (null: nothing to route) and let the previous
   * target drain. With `hold` (upstream null) the ingress holds the project's new requests instead
   * (stop-first cutover on the node) until the next route. Resolves once switched (or held) and
   * drained; throws when the upstream refuses connections (the route is then unchanged).
   */
  route(input: { projectId: string; releaseId: string | null; upstream: NodeUpstream | null; hold?: boolean }): Promise<void>;
}

/** The bundle every node service receives. */
export interface NodesContext {
  ctx: FeatureContext;
  settings: NodeSettings;
  artifacts: NodeArtifactStore;
  listener(): NodeReleaseListener | undefined;
  /** Woken whenever an operation settles (observed, failed or superseded). */
  waiters: GenerationWaiters;
}

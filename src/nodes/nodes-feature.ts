// The runner-nodes feature as the composition root sees it: routes, the release placement hooks, and
// the sweep that unroutes projects of offline nodes. What nodes observed reaches releases through the
// listener it is built with.
import type { FeatureContext } from '../core/feature-context.js';
import type { HttpApp } from '../core/http/create-http-app.js';
import type { NodeGeneration, ReleasePlacementHooks } from '../releases/index.js';
import { nodeRollbackSchema } from './contract.js';
import { GenerationWaiters, outcomeOfOperation } from './generation-waiters.js';
import { requestGeneration } from './generations.js';
import { NodeCanaries } from './node-canaries.js';
import { nodeArtifactStore } from './node-artifacts.js';
import { nodeRoutes } from './node-routes.js';
import { createNodeRouting, type NodeRouting } from './node-routing.js';
import { readNodeSettings, type NodeSettings } from './node-settings.js';
import { getPlacement } from './node-store.js';
import type { NodeReleaseListener, NodesContext } from './nodes-context.js';
import { newestRunningOperation, operationOfGeneration, releaseAwaitsNode, type OperationRow } from './operation-store.js';

/** What src/platform.ts wires. */
export interface NodesFeature {
  routes(app: HttpApp): Promise<void>;
  /** Whether a project is placed on a runner node. */
  isPlaced(projectId: string): boolean;
  /** Hooks for src/releases (uploads and rollbacks of placed projects become generations). */
  placement: ReleasePlacementHooks;
  /** Ingress routes of placed projects, as their nodes report them. */
  routing: NodeRouting;
  /** Start the sweep that unroutes projects whose node went offline. */
  start(): void;
  close(): void;
  settings: NodeSettings;
}

/** A running operation as the release pipeline settles it (its outcome null while the node works on it). */
export function generationOf(op: OperationRow | undefined): NodeGeneration | null {
  if (!op || op.state !== 'running' || !op.release_id) return null;
  const outcome = outcomeOfOperation(op);
  return {
    generation: op.generation,
    releaseId: op.release_id,
    rollback: op.rollback === null ? null : nodeRollbackSchema.parse(JSON.parse(op.rollback)),
    canary: op.canary === 1,
    outcome: outcome === 'open' ? null : outcome,
  };
}

/**
 * The candidate of a canary generation once its node shows it listening, or the node's
 * failure code (a refusal such as SVC_CANARY_PROVIDER_UNSUPPORTED, a failed candidate); null after `waitMs`.
 */
async function awaitNodeCanary(
  n: NodesContext,
  projectId: string,
  generation: number,
  waitMs: number,
): Promise<{ ok: true; upstream: { host: string; port: number } } | { ok: false; code: string } | null> {
  let expired = false;
  const timer = setTimeout(() => (expired = true), waitMs);
  timer.unref();
  try {
    for (;;) {
      const shown = n.canaries.get(projectId, generation);
      if (shown?.upstream) return { ok: true, upstream: shown.upstream };
      const outcome = outcomeOfOperation(operationOfGeneration(n.ctx.db, projectId, generation));
      if (outcome !== 'open' && !outcome.ok) return outcome;
      if (expired || !n.ctx.db.open) return null;
      await new Promise((resolve) => setTimeout(resolve, 50).unref());
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Build the nodes feature (settings from SVC_NODE_* unless given). `releases` is where observed and failed
 * releases are reported and placed projects are routed (src/releases implements it).
 */
export function createNodes(ctx: FeatureContext, options: { releases: NodeReleaseListener; settings?: Partial<NodeSettings> }): NodesFeature {
  const settings = { ...readNodeSettings(ctx.config.env), ...options.settings };
  const n: NodesContext = {
    ctx,
    settings,
    artifacts: nodeArtifactStore(ctx.config.dataDir),
    releases: options.releases,
    waiters: new GenerationWaiters(),
    canaries: new NodeCanaries(),
  };
  const routing = createNodeRouting(n);
  const isPlaced = (projectId: string): boolean => getPlacement(ctx.db, projectId) !== undefined;
  let sweeper: NodeJS.Timeout | undefined;
  return {
    settings,
    routes: nodeRoutes(n, routing),
    isPlaced,
    routing,
    start() {
      if (sweeper) return;
      // A node is offline once unseen for the node lease; its routes go within a third of that.
      sweeper = setInterval(() => void routing.sweep(), Math.max(100, Math.floor(settings.nodeLeaseMs / 3)));
      sweeper.unref();
    },
    close() {
      clearInterval(sweeper);
      sweeper = undefined;
    },
    placement: {
      isPlaced,
      keepArtifact: (projectId, digest, bytes) => n.artifacts.put(projectId, digest, bytes),
      // A rollback passes its intent (restore-data or code only, from which release), a canary its own; a deploy has none.
      deploy: (subject, releaseId, rollback, canary) =>
        requestGeneration(n, subject, {
          state: 'running',
          releaseId,
          ...(rollback ? { rollback: nodeRollbackSchema.parse(rollback) } : {}),
          ...(canary ? { canary: true as const } : {}),
        }),
      awaitCanary: (projectId, generation, waitMs) => awaitNodeCanary(n, projectId, generation, waitMs),
      onCanaryGone: (projectId, generation, listener) => n.canaries.onGone(projectId, generation, listener),
      routedRelease: (projectId) => {
        const route = routing.get(projectId);
        return route?.upstream && route.nodeId === getPlacement(ctx.db, projectId)?.node_id ? route.releaseId : null;
      },
      awaitGeneration: (projectId, generation, waitMs) => n.waiters.await(ctx.db, projectId, generation, waitMs),
      generation: (projectId, generation) => generationOf(operationOfGeneration(ctx.db, projectId, generation)),
      newestGeneration: (projectId, releaseId) => generationOf(newestRunningOperation(ctx.db, projectId, releaseId)),
      awaitingNode: (releaseId) => releaseAwaitsNode(ctx.db, releaseId),
      waitMs: settings.deployWaitMs,
    },
  };
}

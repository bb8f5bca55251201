// The runner-nodes feature as the composition root sees it: routes, the release placement hooks and
// the seam through which releases learn what nodes observed.
import type { FeatureContext } from '../core/feature-context.js';
import type { HttpApp } from '../core/http/create-http-app.js';
import type { ReleasePlacementHooks } from '../releases/index.js';
import { createGeneration } from './generations.js';
import { nodeArtifactStore } from './node-artifacts.js';
import { nodeRoutes } from './node-routes.js';
import { readNodeSettings, type NodeSettings } from './node-settings.js';
import { getPlacement } from './node-store.js';
import type { NodeReleaseListener, NodesContext } from './nodes-context.js';
import { releaseAwaitsNode } from './operation-store.js';

/** What src/platform.ts wires. */
export interface NodesFeature {
  routes(app: HttpApp): Promise<void>;
  /** Whether a project is placed on a runner node. */
  isPlaced(projectId: string): boolean;
  /** Hooks for src/releases (uploads and rollbacks of placed projects become generations). */
  placement: ReleasePlacementHooks;
  /** Where observed and failed releases are reported (src/releases' `nodeOutcome`). */
  setReleaseListener(listener: NodeReleaseListener): void;
  settings: NodeSettings;
}

/** Build the nodes feature (settings from SVC_NODE_* unless given). */
export function createNodes(ctx: FeatureContext, options: { settings?: Partial<NodeSettings> } = {}): NodesFeature {
  const settings = { ...readNodeSettings(ctx.config.env), ...options.settings };
  let listener: NodeReleaseListener | undefined;
  const n: NodesContext = { ctx, settings, artifacts: nodeArtifactStore(ctx.config.dataDir), listener: () => listener };
  const isPlaced = (projectId: string): boolean => getPlacement(ctx.db, projectId) !== undefined;
  return {
    settings,
    routes: nodeRoutes(n),
    isPlaced,
    setReleaseListener(next) {
      listener = next;
    },
    placement: {
      isPlaced,
      keepArtifact: (projectId, digest, bytes) => n.artifacts.put(projectId, digest, bytes),
      deploy: (subject, releaseId) => void createGeneration(n, subject, { state: 'running', releaseId }),
      awaitingNode: (releaseId) => releaseAwaitsNode(ctx.db, releaseId),
      waitMs: settings.deployWaitMs,
    },
  };
}

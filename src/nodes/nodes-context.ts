// What the node services share: the feature context, settings, the artifact store and the release listener.
import type { FeatureContext } from '../core/feature-context.js';
import type { NodeArtifactStore } from './node-artifacts.js';
import type { NodeSettings } from './node-settings.js';

/**
 * How releases learn what nodes did (src/releases implements it; wired by src/platform.ts so src/nodes
 * never calls into the release transaction). Called inside the SQLite transaction of the change.
 */
export interface NodeReleaseListener {
  /** A running generation of this release was observed by its node. */
  observed(input: { projectId: string; releaseId: string; generation: number }): void;
  /** The operation of this release failed (stable code) or was superseded before it was observed. */
  failed(input: { projectId: string; releaseId: string; code: string }): void;
}

/** The bundle every node service receives. */
export interface NodesContext {
  ctx: FeatureContext;
  settings: NodeSettings;
  artifacts: NodeArtifactStore;
  listener(): NodeReleaseListener | undefined;
}

// What the release pipeline asks of a runner node that converges a placed project (src/nodes
// implements it, src/platform.ts wires it). Types only, below release-deps.ts and everything that
// settles node generations, so those import it without importing each other.

/** What a rollback asks of a placed project's node (restore the snapshot it took, or code only). */
export interface NodeRollbackIntent {
  restoreData: boolean;
  /** The release active when the rollback was requested. */
  fromReleaseId: string | null;
}

/** The node's outcome of a generation: observed, or its (or the control plane's) stable code. */
export type NodeOutcome = { ok: true } | { ok: false; code: string };

/** A running generation as the pipeline settles it. */
export interface NodeGeneration {
  generation: number;
  releaseId: string;
  /** A rollback's intent; null for a deploy. */
  rollback: NodeRollbackIntent | null;
  /** A canary's generation (its candidate staged beside the baseline; never committed by itself). */
  canary: boolean;
  /** Null while the node works on it. */
  outcome: NodeOutcome | null;
}

/**
 * The pipeline's node driver: what deploys, rollbacks and boot recovery of projects placed
 * on a runner node ask of it (declared where consumed; src/nodes implements it and src/platform.ts
 * wires it, so releases never imports nodes). A node converges a whole generation at once and reports
 * asynchronously, so its one operation is "converge to this release" and await the outcome.
 */
export interface ReleasePlacementHooks {
  /** Whether a runner node converges this project (its deploys and rollbacks run the node plans). */
  isPlaced(projectId: string): boolean;
  /** Durably keep the verified artifact bytes for the node, before any generation refers to them. */
  keepArtifact(projectId: string, digest: string, bytes: Buffer): Promise<void>;
  /** A new running generation of this release, in its own transaction (throws to refuse); returns its number. */
  deploy(
    subject: { project: { id: string; organizationId: string }; actor: { type: 'user' | 'token' | 'github' | 'system'; id: string; name?: string | null } },
    releaseId: string,
    rollback?: NodeRollbackIntent,
    canary?: true,
  ): number;
  /** Where the candidate of a canary generation listens once its node shows it, its node's failure code, or null after `waitMs`. */
  awaitCanary(
    projectId: string,
    generation: number,
    waitMs: number,
  ): Promise<{ ok: true; upstream: { host: string; port: number } } | { ok: false; code: string } | null>;
  /** Call `listener` once the node's reports stop showing the candidate of `generation`; returns the remover. */
  onCanaryGone(projectId: string, generation: number, listener: () => void): () => void;
  /** The release the node's reports route the project to now (the baseline of a canary), or null. */
  routedRelease(projectId: string): string | null;
  /** The node's outcome of a generation, or null when none came within `waitMs`. */
  awaitGeneration(projectId: string, generation: number, waitMs: number): Promise<NodeOutcome | null>;
  /** A running generation of the project, or null when it has none of that number. */
  generation(projectId: string, generation: number): NodeGeneration | null;
  /** The newest running generation of the project (of one release when given), or null. */
  newestGeneration(projectId: string, releaseId?: string): NodeGeneration | null;
  /** Whether a candidate release is waiting for its node (boot recovery must not fail it). */
  awaitingNode(releaseId: string): boolean;
  /** How long a deploy or rollback waits for the node's outcome before answering with the release as it stands. */
  waitMs: number;
}

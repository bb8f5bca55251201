// Canary candidates runner nodes report beside a placed project's baseline (in heartbeats
// and in the observation of a canary operation). Kept in memory like routes: the control plane's canary
// rollout reads the candidate's address here and learns when the node stops showing it. Nothing here
// routes: the canary splits traffic to the candidate itself; the baseline's route follows the reports.
import type { NodeUpstream } from './node-upstream.js';
import type { NodeProjectReport } from './route-decisions.js';

/** A candidate a node showed for a project. */
export interface NodeCanary {
  nodeId: string;
  generation: number;
  releaseId: string;
  upstream: NodeUpstream | null;
  /** Reports in a row that did not show it (one may have been read before the candidate started). */
  misses: number;
}

/** Reports in a row without the candidate (or with it down) before it counts as gone. */
export const CANARY_GONE_AFTER = 2;

/** Pure: the candidate after a report of its project (null: gone). */
export function nextCanary(current: NodeCanary | undefined, report: NodeProjectReport | undefined, nodeId: string): NodeCanary | null {
  const shown = report?.canary;
  if (shown && shown.upstream !== null && (!current || shown.generation >= current.generation))
    return { nodeId, generation: shown.generation, releaseId: shown.releaseId, upstream: shown.upstream, misses: 0 };
  if (!current) return null;
  const misses = current.misses + 1;
  return misses >= CANARY_GONE_AFTER ? null : { ...current, misses };
}

/** The candidates of placed projects and who waits for them to go. */
export class NodeCanaries {
  readonly #current = new Map<string, NodeCanary>();
  readonly #gone = new Map<string, Set<(generation: number) => void>>();

  /** Apply a node's reports (only for projects placed on it); with `complete`, projects it no longer reports lose their candidate. */
  report(
    nodeId: string,
    reports: readonly NodeProjectReport[],
    placedOn: (projectId: string) => string | undefined,
    options: { complete?: boolean } = {},
  ): void {
    const seen = new Set<string>();
    for (const report of reports) {
      seen.add(report.projectId);
      if (placedOn(report.projectId) === nodeId) this.#apply(report.projectId, report, nodeId);
    }
    if (options.complete)
      for (const [projectId, c] of [...this.#current]) if (c.nodeId === nodeId && !seen.has(projectId)) this.#apply(projectId, undefined, nodeId);
  }

  /** The node observed a canary operation: its candidate listens at `upstream`. */
  observed(nodeId: string, projectId: string, canary: { generation: number; releaseId: string; upstream: NodeUpstream | null }): void {
    if (canary.upstream === null) return;
    const current = this.#current.get(projectId);
    if (!current || canary.generation >= current.generation) this.#current.set(projectId, { nodeId, ...canary, misses: 0 });
  }

  /** The candidate of this generation while its node shows it up. */
  get(projectId: string, generation: number): NodeCanary | undefined {
    const c = this.#current.get(projectId);
    return c && c.generation === generation ? c : undefined;
  }

  /** Call `listener` once the candidate of `generation` is gone (not shown, down, replaced); returns the remover. */
  onGone(projectId: string, generation: number, listener: () => void): () => void {
    const set = this.#gone.get(projectId) ?? new Set();
    this.#gone.set(projectId, set);
    const entry = (gone: number): void => {
      if (gone !== generation) return;
      set.delete(entry);
      listener();
    };
    set.add(entry);
    if (!this.get(projectId, generation)) queueMicrotask(() => entry(generation));
    return () => void set.delete(entry);
  }

  /** Forget a project's candidate (moved, deleted). */
  forget(projectId: string): void {
    const c = this.#current.get(projectId);
    this.#current.delete(projectId);
    if (c) this.#notify(projectId, c.generation);
  }

  #apply(projectId: string, report: NodeProjectReport | undefined, nodeId: string): void {
    const current = this.#current.get(projectId);
    const next = nextCanary(current, report, nodeId);
    if (next) this.#current.set(projectId, next);
    else this.#current.delete(projectId);
    if (current && (!next || next.generation !== current.generation)) this.#notify(projectId, current.generation);
  }

  #notify(projectId: string, generation: number): void {
    for (const listener of [...(this.#gone.get(projectId) ?? [])]) listener(generation);
  }
}

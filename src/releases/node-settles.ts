// The settles of node generations in flight in this process. Its own module because the release deps
// hold one and the node release code (node-release-driver.ts) uses it.
import type { ReleaseCanaryRun } from './canary-hooks.js';
import type { NodeOutcome } from './placement-hooks.js';

/** In-process: one settle per generation at a time, and a settled generation is not settled again. */
export class NodeSettles {
  readonly #settles = new Map<string, Promise<NodeOutcome | null>>();

  once(key: string, work: () => Promise<NodeOutcome | null>): Promise<NodeOutcome | null> {
    const known = this.#settles.get(key);
    if (known) return known;
    const settle = work();
    this.#settles.set(key, settle);
    // Only a settled outcome is remembered (an open one is read again next time); bounded.
    const forget = (): void => void this.#settles.delete(key);
    settle.then((outcome) => outcome === null && forget(), forget);
    if (this.#settles.size > 1000) this.#settles.delete(this.#settles.keys().next().value!);
    return settle;
  }

  readonly #canaries = new Map<string, ReleaseCanaryRun>();

  /** A promoted placed canary's run, settled with the commit of its promotion's outcome. */
  keepCanary(releaseId: string, run: ReleaseCanaryRun): void {
    this.#canaries.set(releaseId, run);
  }

  takeCanary(releaseId: string): ReleaseCanaryRun | null {
    const run = this.#canaries.get(releaseId) ?? null;
    this.#canaries.delete(releaseId);
    return run;
  }
}

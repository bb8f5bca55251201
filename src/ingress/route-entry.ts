// One project's route. A class (not a plain object) so that every change of its canary split or
// generation — including the canary feature's direct assignments — is reported to the table's
// follower (the ingress process's copy of the table follows the control plane's).
import type { CanaryRoute, RouteEntry, RouteHold, UpstreamTarget } from './route-types.js';

export class Route implements RouteEntry {
  readonly projectId: string;
  slug: string | null = null;
  target: UpstreamTarget | null = null;
  hold: RouteHold | null = null;
  #generation = 0;
  #canary: CanaryRoute | null = null;
  readonly #changed: (projectId: string) => void;

  constructor(projectId: string, changed: (projectId: string) => void) {
    this.projectId = projectId;
    this.#changed = changed;
  }

  get generation(): number {
    return this.#generation;
  }

  set generation(value: number) {
    this.#generation = value;
    this.#changed(this.projectId);
  }

  get canary(): CanaryRoute | null {
    return this.#canary;
  }

  set canary(value: CanaryRoute | null) {
    this.#canary = value;
    this.#changed(this.projectId);
  }
}

/** Wake every request waiting on a hold. */
export function wakeAll(hold: RouteHold): void {
  const waiters = [...hold.waiters];
  hold.waiters.clear();
  for (const wake of waiters) wake();
}

/** A hold until `until` (epoch ms) that marks itself expired and wakes its waiters then. */
export function newHold(until: number): RouteHold {
  const hold: RouteHold = { until, expired: false, waiters: new Set(), timer: setTimeout(() => expire(), Math.max(0, until - Date.now())) };
  const expire = (): void => {
    hold.expired = true;
    wakeAll(hold);
  };
  hold.timer.unref();
  return hold;
}

// One project's route. A class (not a plain object) so that every change of its canary split or
// generation — including the canary feature's direct assignments — is reported to the table's
// follower (the ingress process's copy of the table follows the control plane's). Also the helpers
// of its holds, of draining a target and of listing a route.
import type { CanaryRoute, RouteEntry, RouteHold, Upstream, UpstreamTarget } from './route-types.js';

export class Route implements RouteEntry {
  readonly projectId: string;
  slug: string | null = null;
  target: UpstreamTarget | null = null;
  hold: RouteHold | null = null;
  asleep = false;
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

/** End the entry's hold now: its waiting requests go on (to the target, or to their answer). */
export function endHold(entry: RouteEntry): void {
  const hold = entry.hold;
  if (hold === null) return;
  entry.hold = null;
  clearTimeout(hold.timer);
  wakeAll(hold);
}

/**
 * Make a follower's hold what the control plane's route says (`holdUntil`, null = none), once the
 * entry has its target and `asleep`. A new bound of the same hold keeps its waiting requests; a wake
 * hold this copy started itself stays while the route is asleep without a target (the control plane
 * has not answered the wake yet).
 */
export function followHold(entry: RouteEntry, holdUntil: number | null): void {
  const holding = holdUntil !== null && holdUntil > Date.now() && entry.target === null;
  const hold = entry.hold;
  if (hold === null) {
    if (holding) entry.hold = newHold(holdUntil);
  } else if (holding) {
    // The control plane's bound, unless this copy's own wake hold lasts longer (sent before its wake).
    if (hold.until === holdUntil || (hold.wake && !hold.expired && entry.asleep && hold.until > holdUntil)) return;
    clearTimeout(hold.timer);
    const next = newHold(holdUntil, hold.wake);
    for (const wake of hold.waiters) next.waiters.add(wake);
    entry.hold = next;
  } else if (!(hold.wake && !hold.expired && entry.asleep && entry.target === null)) endHold(entry);
}

/** A hold until `until` (epoch ms) that marks itself expired and wakes its waiters then. */
export function newHold(until: number, wake = false): RouteHold {
  const hold: RouteHold = {
    until,
    expired: false,
    wake,
    waiters: new Set(),
    timer: setTimeout(() => expire(), Math.max(0, until - Date.now())),
  };
  const expire = (): void => {
    hold.expired = true;
    wakeAll(hold);
  };
  hold.timer.unref();
  return hold;
}

/** Resolve true once `target` has no request in flight, false after timeoutMs (then `onTimeout`). */
export function waitDrained(target: UpstreamTarget, timeoutMs: number, onTimeout?: (target: UpstreamTarget) => void): Promise<boolean> {
  if (target.inFlight === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      const list = target.waiters;
      if (list) list.splice(list.indexOf(wake), 1);
      onTimeout?.(target);
      resolve(false);
    }, timeoutMs);
    (target.waiters ??= []).push(wake);
  });
}

/** One route as diagnostics and the console list it. */
export interface RouteSummary {
  projectId: string;
  slug: string | null;
  hosts: string[];
  upstream: Upstream | null;
  releaseId: string | null;
  generation: number;
  inFlight: number;
  liveStreams: number;
}

export function summarizeRoute(entry: RouteEntry, hosts: string[]): RouteSummary {
  const target = entry.target;
  return {
    projectId: entry.projectId,
    slug: entry.slug,
    hosts,
    upstream: target && { host: target.host, port: target.port },
    releaseId: target?.releaseId ?? null,
    generation: entry.generation,
    inFlight: target?.inFlight ?? 0,
    liveStreams: target?.liveStreams ?? 0,
  };
}

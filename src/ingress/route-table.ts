import { SvcError } from '../core/errors.js';
import { HostMatcher, normalizeHost } from './host-matcher.js';
import { isPlatformHost, LOOPBACK_NAMES } from './platform-hosts.js';
import { endHold, followHold, newHold, Route, summarizeRoute, waitDrained, wakeAll, type RouteSummary } from './route-entry.js';
import type { RouteState, TargetState } from './route-state.js';
import {
  checkUpstream,
  newTarget,
  routesToCandidate,
  type RoutedProject,
  type RouteEntry,
  type RouteFollower,
  type RouteHold,
  type RouteTableOptions,
  type Upstream,
  type UpstreamTarget,
} from './route-types.js';
import { RouteWake, type WakeListener } from './route-wake.js';

export type { WakeListener } from './route-wake.js';
export {
  newTarget,
  routesToCandidate,
  type RoutedProject,
  type RouteEntry,
  type RouteFollower,
  type RouteHold,
  type RouteTableOptions,
  type Upstream,
  type UpstreamTarget,
} from './route-types.js';

const CACHE_LIMIT = 10_000;

/**
 * In-memory routes host → project → active upstream. Switching is one synchronous assignment,
 * so every request sees either the old or the new target; requests already dispatched keep
 * their target and are counted until they finish, which is what drain() waits for.
 */
export class RouteTable {
  readonly hosts: HostMatcher;
  readonly #entries = new Map<string, RouteEntry>();
  // Raw Host header → entry (or null for hosts that are not project hosts); cleared on changes.
  readonly #cache = new Map<string, RouteEntry | null>();
  readonly #options: RouteTableOptions;
  readonly #platform: ReadonlySet<string>;
  #follower: RouteFollower | null = null;
  readonly #wake: RouteWake;
  readonly #notify = (projectId: string): void => this.#follower?.changed(projectId);

  constructor(options: RouteTableOptions = {}) {
    this.hosts = new HostMatcher(options.baseDomain ?? 'localhost');
    this.#options = options;
    const platform = new Set(LOOPBACK_NAMES);
    for (const name of options.platformHosts ?? []) {
      const host = normalizeHost(name);
      if (host !== null) platform.add(host);
    }
    this.#platform = platform;
    this.#wake = new RouteWake(this.#notify, options.wakeHoldMs, options.onWakeError);
  }

  /** The route for a raw Host header value, or null when the host is not a project's. Hot path. */
  match(rawHost: string): RouteEntry | null {
    const hit = this.#cache.get(rawHost);
    return hit !== undefined ? hit : this.#matchSlow(rawHost);
  }

  #matchSlow(rawHost: string): RouteEntry | null {
    const host = normalizeHost(rawHost);
    // The platform's own hosts first: a project that claims one (a custom domain row, or a slug
    // whose default host is the public host) must never receive the platform's traffic.
    if (host === null || isPlatformHost(host, this.#platform)) return this.#remember(rawHost, null);
    const projectId = this.hosts.resolve(host);
    if (projectId !== undefined) return this.#remember(rawHost, this.#entries.get(projectId) ?? null);
    const slug = this.hosts.slugCandidate(host);
    if (slug === null) return this.#remember(rawHost, null);
    // A possible project without a route yet: ask the project store (not cached when unknown,
    // so a project created later is found).
    const project = this.#options.lookupProject?.(slug);
    if (!project || project.slug !== slug) return null;
    const entry = this.#ensure(project);
    return this.#remember(rawHost, entry);
  }

  #remember(rawHost: string, entry: RouteEntry | null): RouteEntry | null {
    if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear();
    this.#cache.set(rawHost, entry);
    return entry;
  }

  #ensure(project: RoutedProject): RouteEntry {
    let entry = this.#entries.get(project.id);
    if (!entry) {
      entry = new Route(project.id, this.#notify);
      this.#entries.set(project.id, entry);
      this.#notify(project.id);
    }
    if (entry.slug !== project.slug) {
      this.hosts.setDefault(project.id, project.slug);
      entry.slug = project.slug;
      this.#cache.clear();
      this.#notify(project.id);
    }
    return entry;
  }

  /** The entry of a project id, if routed. */
  get(projectId: string): RouteEntry | undefined {
    return this.#entries.get(projectId);
  }

  /**
   * Register a project and set its upstream at once (no probe). Returns the previous target so
   * the caller can drain it. Used at start-up and by tests; deploys use switchUpstream.
   */
  setProject(project: RoutedProject, upstream: Upstream | null, releaseId: string | null): UpstreamTarget | null {
    const target = upstream ? newTarget(checkUpstream(upstream), releaseId) : null;
    return this.#swap(this.#ensure(project), target);
  }

  /**
   * Atomically route a project to a new upstream (null = no active release) after checking it
   * accepts connections. Returns the previous target: drain it, then stop its process.
   * Throws SVC_INGRESS_UPSTREAM_UNAVAILABLE (route unchanged) when the probe fails.
   */
  async switchUpstream(projectId: string, upstream: Upstream | null, releaseId: string | null): Promise<UpstreamTarget | null> {
    if (upstream) checkUpstream(upstream);
    const project = this.#entries.has(projectId) ? null : this.#options.lookupProject?.(projectId);
    if (project === undefined) throw new SvcError('SVC_PROJECT_NOT_FOUND', `Project ${projectId} is not known to the ingress.`);
    if (upstream && this.#options.probe) {
      try {
        await this.#options.probe(upstream);
      } catch (error) {
        throw new SvcError(
          'SVC_INGRESS_UPSTREAM_UNAVAILABLE',
          `Upstream ${upstream.host}:${upstream.port} refused the connection check; the route was not changed.`,
          { cause: error },
        );
      }
    }
    // The entry appears only now, with its target: a follower (the ingress process) must never see
    // a project without a target while its upstream is being checked.
    const entry = this.#entries.get(projectId) ?? this.#ensure(project!);
    return this.#swap(entry, upstream ? newTarget(upstream, releaseId) : null);
  }

  /**
   * Take a project out of rotation while holding its new requests for up to `maxMs` (they go to the
   * next target as soon as one is switched in). Returns the previous target: drain it, then stop it.
   */
  async hold(projectId: string, maxMs: number): Promise<UpstreamTarget | null> {
    const entry = this.#entries.get(projectId) ?? this.#ensureKnown(projectId);
    const previous = this.#swap(entry, null);
    if (maxMs <= 0) return previous;
    // Requests waiting for an asleep route to wake (the only hold a swap to no target keeps) wait on.
    const waking = entry.hold;
    entry.hold = newHold(Date.now() + maxMs);
    if (waking !== null) {
      clearTimeout(waking.timer);
      for (const wake of waking.waiters) entry.hold.waiters.add(wake);
    }
    this.#notify(projectId);
    return previous;
  }

  /** Mark a route asleep or awake (route-wake.ts); a switch to a target and removal clear it. */
  setAsleep(projectId: string, asleep: boolean): void {
    this.#wake.setAsleep(this.#entries.get(projectId) ?? this.#ensureKnown(projectId), asleep);
  }

  isAsleep(projectId: string): boolean {
    return this.#entries.get(projectId)?.asleep === true;
  }

  /** Be told when requests start waiting for an asleep route, once per wake hold; returns the remover. */
  onWake(listener: WakeListener): () => void {
    return this.#wake.on(listener);
  }

  /** Start or join an asleep route's wake hold as a request would (the ingress process's requests); true when held. */
  wake(projectId: string): boolean {
    const entry = this.#entries.get(projectId);
    const hold = entry === undefined ? null : this.#wake.holdFor(entry);
    return hold !== null && !hold.expired;
  }

  /** The hold a request without a target waits on, starting the wake hold of an asleep route. */
  wakeHold(entry: RouteEntry): RouteHold | null {
    return this.#wake.holdFor(entry);
  }

  /** The bound of wake holds (ms). */
  get wakeHoldMs(): number {
    return this.#wake.holdMs;
  }

  /**
   * End every hold now (shutdown): held requests are answered 503 with Retry-After. Not a route
   * change: a follower (the ingress process) keeps holding for the next control plane.
   */
  expireHolds(): void {
    this.#wake.close();
    for (const entry of this.#entries.values()) {
      const hold = entry.hold;
      if (hold === null) continue;
      clearTimeout(hold.timer);
      hold.expired = true;
      wakeAll(hold);
    }
  }

  #ensureKnown(projectId: string): RouteEntry {
    const project = this.#options.lookupProject?.(projectId);
    if (!project) throw new SvcError('SVC_PROJECT_NOT_FOUND', `Project ${projectId} is not known to the ingress.`);
    return this.#ensure(project);
  }

  /** Stop routing a project (project deletion). Returns its last target for draining. */
  removeProject(projectId: string): UpstreamTarget | null {
    const entry = this.#entries.get(projectId);
    if (!entry) return null;
    entry.asleep = false;
    const previous = this.#swap(entry, null);
    this.#entries.delete(projectId);
    this.hosts.removeProject(projectId);
    this.#cache.clear();
    this.#follower?.removed(projectId);
    return previous;
  }

  /** Route a custom domain to a known project (the domains feature calls this). Platform hosts are refused. */
  addDomain(projectId: string, domain: string): string {
    const normalized = normalizeHost(domain);
    if (normalized !== null && isPlatformHost(normalized, this.#platform))
      throw new SvcError('SVC_INGRESS_DOMAIN_RESERVED', `${normalized} is the platform's own host.`);
    if (!this.#entries.has(projectId)) {
      const project = this.#options.lookupProject?.(projectId);
      if (!project) throw new SvcError('SVC_PROJECT_NOT_FOUND', `Project ${projectId} is not known to the ingress.`);
      this.#ensure(project);
    }
    const host = this.hosts.addDomain(projectId, domain);
    this.#cache.clear();
    this.#notify(projectId);
    return host;
  }

  /** Stop routing a custom domain. */
  removeDomain(domain: string): boolean {
    const host = normalizeHost(domain);
    const owner = host === null ? undefined : this.hosts.resolve(host);
    const removed = this.hosts.removeDomain(domain);
    if (removed) this.#cache.clear();
    if (removed && owner !== undefined) this.#notify(owner);
    return removed;
  }

  #swap(entry: RouteEntry, target: UpstreamTarget | null): UpstreamTarget | null {
    const previous = entry.target;
    entry.target = target;
    if (target !== null) entry.asleep = false;
    entry.generation++;
    // Any change ends a hold: held requests go to the new target (or get their answer now). Only a
    // wake hold outlives a change that leaves the route asleep without a target.
    const hold = entry.hold;
    if (hold !== null && !(target === null && hold.wake && entry.asleep)) endHold(entry);
    if (previous && previous !== target) {
      previous.routed = false;
      if (previous.inFlight === 0) this.#retire(previous);
    }
    return previous;
  }

  /** Take the target for one request (counted in flight), or null when there is no active release. Hot path. */
  acquire(entry: RouteEntry): UpstreamTarget | null {
    let target = entry.target;
    const canary = entry.canary;
    if (canary !== null && target !== null) {
      const position = canary.position;
      canary.position = position === 99 ? 0 : position + 1;
      if (routesToCandidate(position, canary.percent)) target = canary.target;
    }
    if (target !== null) target.inFlight++;
    return target;
  }

  /** A request taken with acquire() finished. Hot path. */
  release(target: UpstreamTarget): void {
    if (--target.inFlight > 0) return;
    const waiters = target.waiters;
    if (waiters !== null) {
      target.waiters = null;
      for (const wake of waiters) wake();
    }
    if (!target.routed) this.#retire(target);
  }

  #retire(target: UpstreamTarget): void {
    this.#options.onRetired?.(target);
  }

  /**
   * Resolve true once the target has no request in flight here and in the follower's copy (the
   * ingress process owns the app connections there), false after timeoutMs.
   */
  async drain(target: UpstreamTarget | null, timeoutMs: number): Promise<boolean> {
    if (target === null) return true;
    const follower = this.#follower;
    if (follower === null) return this.#drainHere(target, timeoutMs);
    const [here, there] = await Promise.all([this.#drainHere(target, timeoutMs), follower.drain(target, timeoutMs)]);
    return here && there;
  }

  #drainHere(target: UpstreamTarget, timeoutMs: number): Promise<boolean> {
    return waitDrained(target, timeoutMs, this.#options.onDrainTimeout);
  }

  /** Let `follower` see every change from now on (null = stop). One follower at a time. */
  follow(follower: RouteFollower | null): void {
    this.#follower = follower;
  }

  /** Every routed project id. */
  projectIds(): string[] {
    return [...this.#entries.keys()];
  }

  /** A route as plain data for a follower (`idOf` names each target), or null when not routed. */
  exportRoute(projectId: string, idOf: (target: UpstreamTarget) => string): RouteState | null {
    const entry = this.#entries.get(projectId);
    if (!entry) return null;
    const state = (t: UpstreamTarget): TargetState => ({ id: idOf(t), host: t.host, port: t.port, releaseId: t.releaseId });
    const primary = entry.slug === null ? null : this.hosts.defaultHost(entry.slug);
    const hold = entry.hold;
    return {
      projectId,
      slug: entry.slug,
      domains: this.hosts.hostsOf(projectId).filter((host) => host !== primary),
      target: entry.target && state(entry.target),
      canary: entry.canary && { target: state(entry.canary.target), percent: entry.canary.percent, position: entry.canary.position },
      generation: entry.generation,
      holdUntil: hold !== null && !hold.expired ? hold.until : null,
      asleep: entry.asleep,
    };
  }

  /**
   * Make a project's route what `state` says (the ingress process following the control plane).
   * `resolve` turns a target state into this table's target, reusing the one already routed for the
   * same id, so its in-flight count and connections carry on. Held requests wake when a target
   * arrives or the hold ends; a replaced target retires after its last request.
   */
  applyRoute(state: RouteState, resolve: (target: TargetState) => UpstreamTarget): void {
    let entry = this.#entries.get(state.projectId);
    if (state.slug !== null) entry = this.#ensure({ id: state.projectId, slug: state.slug });
    else if (!entry) {
      entry = new Route(state.projectId, this.#notify);
      this.#entries.set(state.projectId, entry);
    }
    this.hosts.setDomains(state.projectId, state.domains, (host) => isPlatformHost(host, this.#platform));
    this.#cache.clear();
    const target = state.target === null ? null : resolve(state.target);
    if (entry.target !== target) this.#swap(entry, target);
    const canaryTarget = state.canary === null ? null : resolve(state.canary.target);
    const before = entry.canary;
    if (before !== null && before.target !== canaryTarget && before.target !== target) {
      before.target.routed = false;
      if (before.target.inFlight === 0) this.#retire(before.target);
    }
    entry.canary =
      state.canary === null || canaryTarget === null
        ? null
        : { target: canaryTarget, percent: state.canary.percent, position: before?.target === canaryTarget ? before.position : state.canary.position };
    entry.asleep = state.asleep;
    followHold(entry, state.holdUntil);
    entry.generation = state.generation;
  }

  /** Every routed project (for diagnostics and the console). */
  list(): RouteSummary[] {
    return [...this.#entries.values()].map((entry) => summarizeRoute(entry, this.hosts.hostsOf(entry.projectId)));
  }
}

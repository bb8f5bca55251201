// The route table's vocabulary: upstreams, targets with in-flight counts, entries, holds, canary
// splits, the follower seam. Pure types and helpers; the table itself is route-table.ts.
import { isIP } from 'node:net';
import type { Dispatcher } from 'undici';
import { SvcError } from '../core/errors.js';
import { normalizeHost } from './host-matcher.js';

/** Where a release listens. */
export interface Upstream {
  host: string;
  port: number;
}

/** A project as the route table knows it. */
export interface RoutedProject {
  id: string;
  slug: string;
}

/**
 * One routed upstream (a release process) with its in-flight count. Each switch creates a new
 * target, so a reused host:port never shares connections or counts with an older process.
 */
export interface UpstreamTarget {
  readonly host: string;
  readonly port: number;
  /** `http://host:port` */
  readonly origin: string;
  readonly releaseId: string | null;
  /** Requests dispatched to this target and not yet finished towards the client. */
  inFlight: number;
  /** Of those, open live-query streams of the svc runtime (GET under its default `/__svc/live/` path). */
  liveStreams: number;
  /** False once another target replaced it (it only finishes what it has). */
  routed: boolean;
  /** Connection pool owned by the proxy; closed when the target retires. */
  dispatcher: Dispatcher | null;
  /** drain() callers waiting for inFlight to reach 0. */
  waiters: (() => void)[] | null;
}

/** The route of one project. Mutated in place so cached host lookups stay valid across switches. */
export interface RouteEntry {
  readonly projectId: string;
  slug: string | null;
  /** Active release target; null = no active release (503). */
  target: UpstreamTarget | null;
  /** Bumped on every switch; recorded with each request (canary stages exclude older completions). */
  generation: number;
  /** Canary split (a canary run sets it; null = all traffic to `target`). */
  canary: CanaryRoute | null;
  /** While set and not expired, requests without a target wait for one instead of getting 503. */
  hold: RouteHold | null;
  /**
   * The app was stopped for want of requests (a preview): a request that finds no target starts a
   * wake hold instead of getting 503 (route-wake.ts). Switching to a target clears it.
   */
  asleep: boolean;
}

/**
 * Requests held while a project briefly has no release to serve (a migration window, a restore):
 * they wait, unread, for the next target and are then proxied to it. Past `until` the hold expires
 * and they are answered 503 with Retry-After.
 */
export interface RouteHold {
  until: number;
  expired: boolean;
  /** Started by a request for an asleep route (not by the release pipeline): see route-wake.ts. */
  wake: boolean;
  waiters: Set<() => void>;
  timer: NodeJS.Timeout;
}

/**
 * A candidate release receiving `percent` of each deterministic 100-request cycle (no user or
 * session affinity). `position` counts requests modulo 100.
 */
export interface CanaryRoute {
  target: UpstreamTarget;
  percent: number;
  position: number;
}

/** Whether request number `position` (0–99) of a cycle goes to the candidate: `percent` of every 100, evenly spread. Pure. */
export function routesToCandidate(position: number, percent: number): boolean {
  return Math.floor(((position + 1) * percent) / 100) > Math.floor((position * percent) / 100);
}

export interface RouteTableOptions {
  /** Default domains are `<slug>.<baseDomain>` (default `localhost`). */
  baseDomain?: string;
  /**
   * The platform's own host names (public URL host, listen host); loopback names and IP literals
   * are always the platform's. These hosts never route to a project, whatever claims them.
   */
  platformHosts?: Iterable<string>;
  /** Find a project by slug (lazy routing of projects without an active release → 503). */
  lookupProject?: (slugOrId: string) => RoutedProject | undefined;
  /** Check a new upstream accepts connections before traffic moves to it. */
  probe?: (upstream: Upstream) => Promise<void>;
  /** A target that is no longer routed has finished its last request (close its connections). */
  onRetired?: (target: UpstreamTarget) => void;
  /** A drain ran out of time: close what only ends when closed (upgraded connections). */
  onDrainTimeout?: (target: UpstreamTarget) => void;
  /** How long requests for an asleep route wait for it to wake (default 120 s). */
  wakeHoldMs?: number;
  /** A wake listener threw (it never reaches the request that started the hold). */
  onWakeError?: (error: unknown, projectId: string) => void;
}

/**
 * Told about every change of the table (the control plane's link to the ingress process's copy).
 * `changed` may be called several times per change; read the route later (`exportRoute`).
 */
export interface RouteFollower {
  changed(projectId: string): void;
  removed(projectId: string): void;
  /** Wait until the follower's copy has no request in flight on `target`. */
  drain(target: UpstreamTarget, timeoutMs: number): Promise<boolean>;
}

/** Validate an upstream address (called by other features, so checked even though it is in-process). */
export function checkUpstream(upstream: Upstream): Upstream {
  const { host, port } = upstream;
  const validHost = typeof host === 'string' && (isIP(host) !== 0 || normalizeHost(host) === host);
  if (!validHost || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new SvcError('SVC_INGRESS_UPSTREAM_INVALID', `Invalid upstream ${String(host)}:${String(port)}.`);
  }
  return upstream;
}

/** A fresh target for an upstream. */
export function newTarget(upstream: Upstream, releaseId: string | null): UpstreamTarget {
  const host = isIP(upstream.host) === 6 ? `[${upstream.host}]` : upstream.host;
  return {
    host: upstream.host,
    port: upstream.port,
    origin: `http://${host}:${upstream.port}`,
    releaseId,
    inFlight: 0,
    liveStreams: 0,
    routed: true,
    dispatcher: null,
    waiters: null,
  };
}

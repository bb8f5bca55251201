// The seam to the ingress: at activation traffic moves atomically to the new release, and the
// previous target drains before its process stops. Defined here, where it is consumed; the ingress
// route table (src/ingress/route-table.ts) satisfies it structurally.

/** Where a release listens. */
export interface ReleaseUpstream {
  host: string;
  port: number;
}

/** What the release transaction needs from the ingress. `T` is the ingress's handle of a routed target. */
export interface ReleaseRouting<T = unknown> {
  /** Route the project to `upstream` (null: no active release); returns the previous target to drain. */
  switchUpstream(projectId: string, upstream: ReleaseUpstream | null, releaseId: string | null): Promise<T | null>;
  /** Resolve once the previous target has no request in flight (false after timeoutMs). */
  drain(previous: T | null, timeoutMs: number): Promise<boolean>;
  /** Take the project out of rotation, holding its new requests up to maxMs for the next target; returns the previous target. */
  hold(projectId: string, maxMs: number): Promise<T | null>;
}

/** Routing that does nothing (no ingress wired, e.g. in unit tests). */
export const noRouting: ReleaseRouting<null> = {
  switchUpstream: async () => null,
  drain: async () => true,
  hold: async () => null,
};

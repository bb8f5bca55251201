// The address of a placed project's app as its node reports it. Its own module because the shared
// context (nodes-context.ts), the route decisions and the canary tracking all speak of it.

/** Where a placed project's active app listens, as its node advertises it (reachable from the control plane). */
export interface NodeUpstream {
  host: string;
  port: number;
}

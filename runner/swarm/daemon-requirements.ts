// What Engine API v1.41 cannot say per service, so the daemon running svc's tasks must enforce it.
// The Engine API does not report these flags, so the driver cannot check them: docs/swarm.md tells
// operators to set them, and the real-engine suite starts dockerd with them.

/** dockerd flags the swarm driver relies on. */
export const SWARM_DAEMON_FLAGS = [
  // No per-service no-new-privileges before API 1.46: the daemon applies it to every container.
  '--no-new-privileges',
] as const;

// Not `--ip=127.0.0.1`: svc's ingress reaches each task at its node's address and published port, so
// published ports must answer there. Other tenants' tasks are kept from them by Docker's iptables
// rules (dockerd runs with iptables on); hosts outside the swarm by the node's firewall (docs/swarm.md).

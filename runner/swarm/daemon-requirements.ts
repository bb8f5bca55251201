// What Engine API v1.41 cannot say per service, so the daemon running svc's tasks must enforce it.
// The future driver refuses a daemon that lacks them; the real-engine suite starts dockerd with them.

/** dockerd flags the swarm driver relies on. */
export const SWARM_DAEMON_FLAGS = [
  // No per-service no-new-privileges before API 1.46: the daemon applies it to every container.
  '--no-new-privileges',
  // Host-mode published ports carry no host IP in v1.41: the daemon's default bind address keeps them on loopback.
  '--ip=127.0.0.1',
] as const;

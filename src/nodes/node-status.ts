// Pure: the status operators see for a node, from its draining flag and heartbeat age.

/** What a node's status depends on. */
export interface NodeLiveness {
  draining: boolean;
  lastSeenAt: number | null;
}

/** `offline` once not seen for `nodeLeaseMs` (or never), else `draining` when it said so, else `ready`. */
export function nodeStatus(node: NodeLiveness, now: number, nodeLeaseMs: number): 'ready' | 'draining' | 'offline' {
  if (node.lastSeenAt === null || now - node.lastSeenAt >= nodeLeaseMs) return 'offline';
  return node.draining ? 'draining' : 'ready';
}

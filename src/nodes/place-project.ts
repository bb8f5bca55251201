// Pure placement: choose the node a project converges on. No disk, no clock: statuses come in with the data.

/** One node as placement sees it. */
export interface PlacementNode {
  id: string;
  region: string;
  labels: Readonly<Record<string, string>>;
  capacity: number;
  /** Projects already placed on the node. */
  placed: number;
  status: 'ready' | 'draining' | 'offline';
}

/** Constraints of a placement request. */
export interface PlacementConstraints {
  region?: string | undefined;
  labels?: Readonly<Record<string, string>>;
}

/** Whether a node satisfies the region and every requested label (ignores capacity and status). */
export function nodeMatches(node: PlacementNode, request: PlacementConstraints): boolean {
  if (request.region !== undefined && node.region !== request.region) return false;
  return Object.entries(request.labels ?? {}).every(([key, value]) => Object.hasOwn(node.labels, key) && node.labels[key] === value);
}

/**
 * The node for a new placement, or null when nothing fits: ready (not draining or offline), matching
 * region and labels, with capacity left; ties go to the fewest placed projects, then the smallest id.
 */
export function placeProject(nodes: readonly PlacementNode[], request: PlacementConstraints): PlacementNode | null {
  const fitting = nodes.filter((n) => n.status === 'ready' && n.placed < n.capacity && nodeMatches(n, request));
  fitting.sort((a, b) => a.placed - b.placed || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return fitting[0] ?? null;
}

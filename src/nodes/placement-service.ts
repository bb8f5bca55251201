// Node views for operators and the placement of a project (the choice itself is the pure placeProject).
import { appendAudit } from '../audit/append-audit.js';
import { SvcError } from '../core/errors.js';
import { isoTime } from '../core/feature-context.js';
import { activeReleaseRow } from '../releases/index.js';
import type { NodeView, Placement } from './contract.js';
import { nodeStatus } from './node-status.js';
import { getNode, getPlacement, listNodes, nodeLabels, placedCounts, upsertPlacement, type NodeRow, type PlacementRow } from './node-store.js';
import type { NodesContext } from './nodes-context.js';
import { getDesired, openOperationsOfProject } from './operation-store.js';
import { nodeMatches, placeProject, type PlacementConstraints, type PlacementNode } from './place-project.js';

/** A node row as operators and placement see it. */
export function nodeView(n: NodesContext, row: NodeRow, placed: number, now: number): NodeView {
  return {
    id: row.id,
    region: row.region,
    capacity: row.capacity,
    concurrency: row.concurrency,
    labels: nodeLabels(row),
    placed,
    status: nodeStatus({ draining: row.draining === 1, lastSeenAt: row.last_seen_at }, now, n.settings.nodeLeaseMs),
    enrolledAt: isoTime(row.enrolled_at),
    lastSeenAt: row.last_seen_at === null ? null : isoTime(row.last_seen_at),
  };
}

/** Every enrolled node with its status and placed count. */
export function listNodeViews(n: NodesContext): NodeView[] {
  const counts = placedCounts(n.ctx.db);
  const now = n.ctx.clock.now();
  return listNodes(n.ctx.db).map((row) => nodeView(n, row, counts.get(row.id) ?? 0, now));
}

/** The wire view of a placement. */
export function placementView(n: NodesContext, row: PlacementRow): Placement {
  const node = getNode(n.ctx.db, row.node_id);
  return { projectId: row.project_id, nodeId: row.node_id, region: node?.region ?? 'unknown', placedAt: isoTime(row.placed_at) };
}

/** The subject of a placement or generation change (for audit). */
export interface ProjectSubject {
  project: { id: string; organizationId: string };
  actor: { type: 'user' | 'token' | 'github' | 'system'; id: string; name?: string | null };
}

/**
 * Place a project (one transaction). An existing placement whose node still fits is kept; moving to
 * another node is refused while the desired state is running or operations are open, and a project
 * already hosted by the built-in supervisor is never relocated.
 */
export function placeProjectOnNode(n: NodesContext, subject: ProjectSubject, request: PlacementConstraints): Placement {
  const { ctx } = n;
  const projectId = subject.project.id;
  return ctx.db
    .transaction(() => {
      const now = ctx.clock.now();
      const views: PlacementNode[] = listNodeViews(n);
      const current = getPlacement(ctx.db, projectId);
      if (current) {
        const node = views.find((v) => v.id === current.node_id);
        if (node && node.status !== 'offline' && nodeMatches(node, request)) return placementView(n, current);
        const desired = getDesired(ctx.db, projectId);
        if (desired?.state === 'running' || openOperationsOfProject(ctx.db, projectId).length > 0) {
          throw new SvcError('SVC_NODE_PLACEMENT_LOCKED', `The project runs on node ${current.node_id}; moving a placed project is not supported.`);
        }
      } else if (activeReleaseRow(ctx, projectId)) {
        throw new SvcError('SVC_NODE_PROJECT_HOSTED_LOCALLY');
      }
      const chosen = placeProject(
        views.filter((v) => v.id !== current?.node_id),
        request,
      );
      if (!chosen) throw new SvcError('SVC_NODE_NO_FIT');
      const row = { project_id: projectId, node_id: chosen.id, placed_at: now };
      upsertPlacement(ctx.db, row);
      appendAudit(ctx, {
        kind: 'node.place',
        organizationId: subject.project.organizationId,
        projectId,
        actor: subject.actor,
        metadata: {
          nodeId: chosen.id,
          region: chosen.region,
          previousNodeId: current?.node_id ?? null,
          constraints: { region: request.region ?? null, labels: request.labels ?? {} },
        },
      });
      return placementView(n, row);
    })
    .immediate();
}

import type { FeatureContext } from '../core/feature-context.js';
import { isoTime } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import { AUDIT_DEFAULT_LIMIT, type AuditEvent, type AuditPage } from './contract.js';

interface AuditRow {
  seq: number;
  id: string;
  kind: string;
  organization_id: string;
  project_id: string | null;
  actor_type: AuditEvent['actor']['type'];
  actor_id: string;
  actor_name: string | null;
  metadata: string;
  created_at: number;
}

/** Which events a caller may see: these organizations, optionally only one project. */
export interface AuditScope {
  organizationIds: readonly string[];
  projectId: string | null;
}

function toEvent(row: AuditRow): AuditEvent {
  return {
    id: row.id,
    kind: row.kind,
    organizationId: row.organization_id,
    projectId: row.project_id,
    actor: { type: row.actor_type, id: row.actor_id, name: row.actor_name },
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    createdAt: isoTime(row.created_at),
  };
}

/** Newest-first page of events within `scope`, older than the `before` event id. */
export function readAuditPage(
  ctx: Pick<FeatureContext, 'db'>,
  scope: AuditScope,
  options: { limit?: number | undefined; before?: string | undefined },
): AuditPage {
  const limit = options.limit ?? AUDIT_DEFAULT_LIMIT;
  if (scope.organizationIds.length === 0) return { events: [], nextCursor: null };
  let beforeSeq = Number.MAX_SAFE_INTEGER;
  if (options.before !== undefined) {
    const cursor = ctx.db.prepare('SELECT seq, organization_id, project_id FROM audit_events WHERE id = ?').get(options.before) as
      { seq: number; organization_id: string; project_id: string | null } | undefined;
    if (!cursor || !scope.organizationIds.includes(cursor.organization_id) || (scope.projectId !== null && cursor.project_id !== scope.projectId)) {
      throw new SvcError('SVC_AUDIT_CURSOR_INVALID');
    }
    beforeSeq = cursor.seq;
  }
  const orgs = scope.organizationIds.map(() => '?').join(',');
  const projectFilter = scope.projectId !== null ? 'AND project_id = ?' : '';
  const params: (string | number)[] = [...scope.organizationIds, ...(scope.projectId !== null ? [scope.projectId] : []), beforeSeq, limit + 1];
  const rows = ctx.db
    .prepare(`SELECT * FROM audit_events WHERE organization_id IN (${orgs}) ${projectFilter} AND seq < ? ORDER BY seq DESC LIMIT ?`)
    .all(...params) as AuditRow[];
  const page = rows.slice(0, limit);
  return { events: page.map(toEvent), nextCursor: rows.length > limit ? page[page.length - 1]!.id : null };
}

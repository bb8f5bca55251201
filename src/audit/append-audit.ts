import type { FeatureContext } from '../core/feature-context.js';
import type { AuditActor } from './contract.js';
import type { AuditKind } from './kinds.js';

export interface AuditInput {
  kind: AuditKind;
  organizationId: string;
  projectId?: string | null;
  actor: { type: AuditActor['type']; id: string; name?: string | null };
  /** Safe, non-secret details (names, ids, counts); never values of secrets or tokens. */
  metadata?: Record<string, unknown>;
}

/**
 * Append one audit event. Synchronous on purpose: call it inside the same SQLite transaction
 * as the change it records, so the event exists exactly when the change does.
 */
export function appendAudit(ctx: Pick<FeatureContext, 'db' | 'clock' | 'ids'>, input: AuditInput): string {
  const id = ctx.ids('evt');
  ctx.db
    .prepare(
      `INSERT INTO audit_events (id, kind, organization_id, project_id, actor_type, actor_id, actor_name, metadata, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      input.kind,
      input.organizationId,
      input.projectId ?? null,
      input.actor.type,
      input.actor.id,
      input.actor.name ?? null,
      JSON.stringify(input.metadata ?? {}),
      ctx.clock.now(),
    );
  return id;
}

// HTTP contract of the audit feed: paths and zod schemas. Shared by the server, the CLI
// (`svc activity --json` prints exactly this feed) and the console; imports only zod.
import { z } from 'zod';

export const auditRoutes = {
  feed: '/api/audit',
  projectFeed: '/api/projects/:id/audit',
} as const;

export const AUDIT_DEFAULT_LIMIT = 50;
export const AUDIT_MAX_LIMIT = 200;

export const auditActorSchema = z.object({
  type: z.enum(['user', 'token', 'github', 'system']),
  id: z.string(),
  name: z.string().nullable(),
});
export type AuditActor = z.infer<typeof auditActorSchema>;

export const auditEventSchema = z.object({
  id: z.string().describe('event id; pass as `before` to get the next (older) page'),
  kind: z.string().describe('e.g. project.create, token.create, token.revoke (see docs/api.md)'),
  organizationId: z.string(),
  projectId: z.string().nullable(),
  actor: auditActorSchema,
  metadata: z.record(z.string(), z.unknown()),
  createdAt: z.string().describe('ISO 8601 timestamp'),
});
export type AuditEvent = z.infer<typeof auditEventSchema>;

export const auditQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(AUDIT_MAX_LIMIT).optional(),
  before: z.string().min(1).max(100).optional(),
  organizationId: z.string().min(1).max(100).optional(),
});
export const projectAuditQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(AUDIT_MAX_LIMIT).optional(),
  before: z.string().min(1).max(100).optional(),
});
/** Newest first; `nextCursor` is the id to pass as `before`, or null on the last page. */
export const auditPageSchema = z.object({ events: z.array(auditEventSchema), nextCursor: z.string().nullable() });
export type AuditPage = z.infer<typeof auditPageSchema>;

/** The kinds of `kind` the server emits (src/audit/kinds.ts); the console words each one. */
export type { AuditKind } from './kinds.js';

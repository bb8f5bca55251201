// HTTP contract of the operations routes (zod only).
import { z } from 'zod';

/** `GET /api/admin/audit-export`. */
export const auditExportStatusSchema = z.object({
  configured: z.boolean(),
  keyId: z.string().nullable(),
  checkpoint: z.object({ sequence: z.number().int(), digest: z.string() }).describe('last acknowledged entry'),
  signedThrough: z.number().int(),
  auditThrough: z.number().int(),
  pending: z.number().int().describe('signed, not yet acknowledged'),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  lastAttemptAt: z.number().nullable(),
  lastSuccessAt: z.number().nullable(),
  nextAttemptAt: z.number().nullable(),
});

/** Summary of one monitor pass. */
export const monitorPassSchema = z.object({
  projects: z.number().int(),
  conditions: z.number().int(),
  opened: z.number().int(),
  resolved: z.number().int(),
  delivered: z.number().int(),
  failed: z.number().int(),
  sourceErrors: z.number().int(),
  jobs: z.number().int().optional().describe('scheduled jobs inspected (at most five per pass)'),
  drill: z.object({ projectId: z.string(), outcome: z.string() }).nullable().optional().describe('the restore drill this pass ran'),
});

/** One restore drill receipt (times ISO 8601). */
export const drillReceiptSchema = z.object({
  id: z.string(),
  projectId: z.string(),
  releaseId: z.string().nullable().describe('the release whose code was booted on the restored copy'),
  backupId: z.string(),
  startedAt: z.string(),
  finishedAt: z.string(),
  outcome: z.enum(['passed', 'failed', 'setup-failed']),
  code: z.string().nullable(),
  error: z.string().nullable(),
  checks: z.array(z.object({ name: z.string(), path: z.string(), expected: z.number().int(), status: z.number().int().nullable(), ok: z.boolean() })),
});

/** `GET /api/admin/operations`. */
export const operationsStateSchema = z.object({
  configured: z.boolean(),
  intervalMs: z.union([z.number(), z.literal(false)]),
  lastPassAt: z.string().nullable(),
  lastPass: monitorPassSchema.nullable(),
  incidents: z.array(
    z.object({
      id: z.string(),
      key: z.string(),
      kind: z.string(),
      projectId: z.string().nullable(),
      details: z.record(z.string(), z.unknown()),
      openedAt: z.string(),
      resolvedAt: z.string().nullable(),
    }),
  ),
  notifications: z.array(
    z.object({
      alertId: z.string(),
      transition: z.enum(['open', 'resolve']),
      status: z.enum(['pending', 'delivered']),
      attempts: z.number().int(),
      nextAttemptAt: z.number(),
      lastError: z.string().nullable(),
      deliveredAt: z.number().nullable(),
    }),
  ),
  drills: z.array(drillReceiptSchema).describe('newest restore drill receipts first'),
});

/** `POST /api/admin/operations/run`. */
export const operationsRunSchema = z.object({ pass: monitorPassSchema });

/** Wire type of `GET /api/admin/operations`. */
export type OperationsState = z.infer<typeof operationsStateSchema>;

/** Routes of metered usage: a project's and a workspace's (organization's), each by id or slug. */
export const usagePaths = {
  project: '/api/projects/:id/usage',
  workspace: '/api/orgs/:id/usage',
} as const;

/** One forecast of `GET /api/projects/:id/usage` (times in ms since the epoch). */
export const usageForecastSchema = z.object({
  status: z.enum(['ok', 'insufficient-evidence']).describe('insufficient-evidence under one hour of data; thresholds still apply'),
  observationMs: z.number().nonnegative(),
  averageRatePerHour: z.number().nonnegative(),
  projectedPeriodTotal: z.number().nonnegative(),
  estimatedExhaustionAt: z.number().nullable(),
  warning: z.boolean(),
});

/** `GET /api/projects/:id/usage`: metered usage of the current UTC month and its forecasts. */
export const usageResponseSchema = z.object({
  usage: z.object({
    requests: z.number().int().nonnegative(),
    transferBytes: z.number().int().nonnegative(),
    period: z.object({ start: z.number(), end: z.number() }),
    quota: z.object({ requests: z.number().nullable(), transferBytes: z.number().nullable() }),
  }),
  forecast: z.object({ requests: usageForecastSchema, transferBytes: usageForecastSchema }),
});

/** Wire type of `GET /api/projects/:id/usage`. */
export type UsageResponse = z.infer<typeof usageResponseSchema>;

/** `GET /api/orgs/:id/usage`: the workspace (organization) total with forecasts, plus each project's share. */
export const workspaceUsageResponseSchema = usageResponseSchema.extend({
  organizationId: z.string(),
  projects: z
    .array(z.object({ projectId: z.string(), slug: z.string(), requests: z.number().int().nonnegative(), transferBytes: z.number().int().nonnegative() }))
    .describe('at most 1,000 projects, oldest first'),
  truncated: z.boolean().describe('the workspace has more than 1,000 projects; the totals cover the first 1,000'),
});

/** Wire type of `GET /api/orgs/:id/usage`. */
export type WorkspaceUsageResponse = z.infer<typeof workspaceUsageResponseSchema>;

// Workspace (organization) usage: the sum of its projects' metered ingress for the current UTC month,
// forecast like a project's, against optional workspace quotas (SVC_WORKSPACE_MONTHLY_*).
import { SvcError } from '../../core/errors.js';
import type { FeatureContext } from '../../core/feature-context.js';
import { bearerOrSession, type HttpApp } from '../../core/http/create-http-app.js';
import { authenticate, authorize, currentRole, findOrganization } from '../../identity/index.js';
import { orgParamsSchema } from '../../identity/contract.js';
import { listProjects } from '../../projects/index.js';
import { usagePaths, workspaceUsageResponseSchema, type WorkspaceUsageResponse } from '../contract.js';
import { forecastUsage, type UsageObservation } from './forecast-usage.js';
import type { UsageConfig } from './usage-config.js';
import { billingPeriod, usageObservations } from './usage-observations.js';
import type { UsageMetrics } from './usage-routes.js';

/** A pass or payload covers at most 1,000 projects (bounds one pass's work and payload size). */
export const WORKSPACE_PROJECT_LIMIT = 1000;

/** Pure: add observation lists that share one time grid (same `now`, same windows) point by point. */
export function sumObservations(lists: readonly (readonly UsageObservation[])[]): UsageObservation[] {
  const byTime = new Map<number, UsageObservation>();
  for (const list of lists) {
    for (const o of list) {
      const at = byTime.get(o.t);
      byTime.set(o.t, at ? { t: o.t, requests: at.requests + o.requests, bytes: at.bytes + o.bytes } : { ...o });
    }
  }
  return [...byTime.values()].sort((a, b) => a.t - b.t);
}

/** Usage of the given projects as one workspace (projects beyond the limit are left out and flagged). */
export function workspaceUsage(
  metrics: UsageMetrics,
  organizationId: string,
  projects: readonly { id: string; slug: string }[],
  now: number,
  config: UsageConfig,
): WorkspaceUsageResponse {
  metrics.flush();
  const period = billingPeriod(now);
  const counted = projects.slice(0, WORKSPACE_PROJECT_LIMIT);
  const perProject = counted.map((p) => ({
    project: p,
    observations: usageObservations({ month: metrics.query(p.id, '30d'), day: metrics.query(p.id, '24h'), hour: metrics.query(p.id, '1h') }, period.start),
  }));
  const total = sumObservations(perProject.map((p) => p.observations));
  const quota = config.workspaceQuota;
  return {
    organizationId,
    usage: {
      requests: total.reduce((s, o) => s + o.requests, 0),
      transferBytes: total.reduce((s, o) => s + o.bytes, 0),
      period,
      quota: { requests: quota.requests ?? null, transferBytes: quota.transferBytes ?? null },
    },
    forecast: forecastUsage(total, { periodStart: period.start, periodEnd: period.end, now, quota, warningPercent: config.warningPercent }),
    projects: perProject.map(({ project, observations }) => ({
      projectId: project.id,
      slug: project.slug,
      requests: observations.reduce((s, o) => s + o.requests, 0),
      transferBytes: observations.reduce((s, o) => s + o.bytes, 0),
    })),
    truncated: projects.length > WORKSPACE_PROJECT_LIMIT,
  };
}

/** `GET /api/orgs/:id/usage` (members with `read`). */
export function workspaceUsageRoutes(ctx: FeatureContext, metrics: UsageMetrics | undefined, config: UsageConfig) {
  return async function register(app: HttpApp): Promise<void> {
    if (!metrics) return;
    app.get(
      usagePaths.workspace,
      {
        schema: {
          tags: ['operations'],
          security: bearerOrSession,
          summary: 'Workspace usage of the current UTC month: totals over its projects with request and transfer forecasts',
          params: orgParamsSchema,
          response: { 200: workspaceUsageResponseSchema },
        },
      },
      async (request): Promise<WorkspaceUsageResponse> => {
        const principal = authenticate(ctx, request);
        const org = findOrganization(ctx, request.params.id);
        if (!org || currentRole(ctx, org.id, principal.user.id) === null) throw new SvcError('SVC_ORG_NOT_FOUND');
        authorize(ctx, principal, { permission: 'read', organizationId: org.id, accountWide: true });
        const projects = listProjects(ctx, [org.id]).map((p) => ({ id: p.id, slug: p.slug }));
        return workspaceUsage(metrics, org.id, projects, ctx.clock.now(), config);
      },
    );
  };
}

import type { FeatureContext } from '../../core/feature-context.js';
import { bearerOrSession, type HttpApp } from '../../core/http/create-http-app.js';
import type { Ingress } from '../../ingress/index.js';
import { projectParamsSchema } from '../../projects/contract.js';
import { requireProjectPermission } from '../../projects/index.js';
import { usageResponseSchema, usagePaths, type UsageResponse } from '../contract.js';
import { forecastUsage } from './forecast-usage.js';
import type { UsageConfig } from './usage-config.js';
import { billingPeriod, usageObservations } from './usage-observations.js';

/** The ingress metrics reader the usage route needs (`plane.ingress.metrics`). */
export type UsageMetrics = Pick<Ingress['metrics'], 'flush' | 'query'>;

/** Metered usage of a project for the current UTC month with its forecasts (pure over the ingress windows). */
export function projectUsage(metrics: UsageMetrics, projectId: string, now: number, config: Pick<UsageConfig, 'quota' | 'warningPercent'>): UsageResponse {
  metrics.flush();
  const period = billingPeriod(now);
  const observations = usageObservations(
    { month: metrics.query(projectId, '30d'), day: metrics.query(projectId, '24h'), hour: metrics.query(projectId, '1h') },
    period.start,
  );
  const forecast = forecastUsage(observations, {
    periodStart: period.start,
    periodEnd: period.end,
    now,
    quota: config.quota,
    warningPercent: config.warningPercent,
  });
  return {
    usage: {
      requests: observations.reduce((s, o) => s + o.requests, 0),
      transferBytes: observations.reduce((s, o) => s + o.bytes, 0),
      period,
      quota: { requests: config.quota.requests ?? null, transferBytes: config.quota.transferBytes ?? null },
    },
    forecast,
  };
}

/** `GET /api/projects/:id/usage` (permission `read`). */
export function usageRoutes(ctx: FeatureContext, metrics: UsageMetrics | undefined, config: UsageConfig) {
  return async function register(app: HttpApp): Promise<void> {
    if (!metrics) return;
    app.get(
      usagePaths.project,
      {
        schema: {
          tags: ['operations'],
          security: bearerOrSession,
          summary: 'Metered ingress usage of the current UTC month with request and transfer forecasts',
          params: projectParamsSchema,
          response: { 200: usageResponseSchema },
        },
      },
      async (request): Promise<UsageResponse> => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        return projectUsage(metrics, project.id, ctx.clock.now(), config);
      },
    );
  };
}

import type { FeatureContext } from '../core/feature-context.js';
import { bearerOrSession, type HttpApp } from '../core/http/create-http-app.js';
import { isoTime } from '../core/feature-context.js';
import { requireProjectPermission } from '../projects/index.js';
import { projectParamsSchema } from '../projects/contract.js';
import { ingressRoutePaths, metricsQuerySchema, metricsResponseSchema, type MetricsResponse } from './contract.js';
import type { Ingress } from './create-ingress.js';

/** `GET /api/projects/:id/metrics?window=1h|24h|7d|30d`: ingress performance for the console (permission `read`). */
export function ingressRoutes(ctx: FeatureContext, ingress: Ingress) {
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      ingressRoutePaths.metrics,
      {
        schema: {
          tags: ['ingress'],
          security: bearerOrSession,
          summary: 'Ingress performance of a project: requests, 5xx errors, p50/p95 latency at body completion and bytes per point',
          params: projectParamsSchema,
          querystring: metricsQuerySchema,
          response: { 200: metricsResponseSchema },
        },
      },
      async (request): Promise<MetricsResponse> => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        ingress.metrics.flush();
        const { releaseId } = request.query;
        const report = ingress.metrics.query(project.id, request.query.window, releaseId === undefined ? {} : { releaseId });
        return {
          projectId: project.id,
          window: report.window,
          stepSeconds: report.stepMs / 1000,
          from: isoTime(report.from),
          to: isoTime(report.to),
          series: report.series.map((p) => ({ ...p, t: isoTime(p.t) })),
          totals: report.totals,
        };
      },
    );
  };
}

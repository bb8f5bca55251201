import type { FeatureContext } from '../core/feature-context.js';
import { bearerOrSession, type HttpApp } from '../core/http/create-http-app.js';
import { requireProjectPermission } from '../projects/index.js';
import { projectParamsSchema } from '../projects/contract.js';
import { canaryReportResponseSchema, canaryRoutePaths, type CanaryReportResponse } from './contract.js';
import type { CanaryStore } from './canary-store.js';

/** `GET /api/projects/:id/canary`: durable canary runs with stage and failure reports (permission `read`). */
export function canaryRoutes(ctx: FeatureContext, store: CanaryStore) {
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      canaryRoutePaths.report,
      {
        schema: {
          tags: ['canary'],
          security: bearerOrSession,
          summary: 'Canary rollouts of a project, newest first: state, policy, per-stage samples, error rate and p95, failure',
          params: projectParamsSchema,
          response: { 200: canaryReportResponseSchema },
        },
      },
      async (request): Promise<CanaryReportResponse> => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        return { projectId: project.id, runs: store.report(project.id) };
      },
    );
  };
}

// DELETE /api/projects/:id — permanent project deletion. Account-wide session (same-origin + CSRF,
// checked by authenticate) or account-wide token only; owner or administrator (`admin`).
import type { FeatureContext } from '../core/feature-context.js';
import { bearerOrSession, type HttpApp } from '../core/http/create-http-app.js';
import { deleteProjectBodySchema, deleteProjectResponseSchema } from './domains-contract.js';
import { projectParamsSchema, projectRoutes } from './contract.js';
import { deleteSite, type SiteDeletionDeps } from './delete-project.js';
import { requireProjectPermission } from './project-access.js';

/** Register the project deletion route. */
export function deleteProjectRoutes(deps: SiteDeletionDeps) {
  const ctx: FeatureContext = deps.ctx;
  return async function register(app: HttpApp): Promise<void> {
    app.delete(
      projectRoutes.project,
      {
        schema: {
          tags: ['projects'],
          security: bearerOrSession,
          summary: 'Delete a site permanently (account-wide credential, owner or administrator, "delete-site <slug>" and the data-loss acknowledgement)',
          params: projectParamsSchema,
          body: deleteProjectBodySchema,
          response: { 200: deleteProjectResponseSchema },
        },
      },
      async (request) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'admin', { accountWide: true });
        const result = await deleteSite(deps, { principal, project, confirm: request.body.confirm, acknowledgeDataLoss: request.body.acknowledgeDataLoss });
        return { deleted: true as const, ...result };
      },
    );
  };
}

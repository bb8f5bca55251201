// DELETE /api/projects/:id/releases/:releaseId — release cleanup (permission `rollback`).
import type { FeatureContext } from '../core/feature-context.js';
import { bearerOrSession, type HttpApp } from '../core/http/create-http-app.js';
import type { ProjectLocks } from '../core/project-lock.js';
import { actorOf } from '../identity/index.js';
import { requireProjectPermission } from '../projects/index.js';
import { releaseParamsSchema, releaseRoutes as r } from './contract.js';
import { deleteReleaseBodySchema, deleteReleaseResponseSchema } from './delete-release-contract.js';
import type { ReleaseDriver } from '../../runner/release-driver.js';
import { deleteReleaseArtifact } from './delete-release.js';

/** Register the release cleanup route. */
export function deleteReleaseRoutes(ctx: FeatureContext, locks: ProjectLocks, driver: Pick<ReleaseDriver, 'unstage'>, options: { lockWaitMs?: number } = {}) {
  return async function register(app: HttpApp): Promise<void> {
    app.delete(
      r.release,
      {
        schema: {
          tags: ['releases'],
          security: bearerOrSession,
          summary:
            'Remove an inactive release artifact (rollback permission; "delete-release <slug> <id>"; the predecessor of the active release only with allowRollbackLoss)',
          params: releaseParamsSchema,
          body: deleteReleaseBodySchema,
          response: { 200: deleteReleaseResponseSchema },
        },
      },
      async (request) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'rollback');
        const result = await deleteReleaseArtifact(
          { ctx, locks, driver, lockWaitMs: options.lockWaitMs ?? 0 },
          {
            project: { id: project.id, slug: project.slug, organizationId: project.organization_id },
            actor: actorOf(principal),
            releaseId: request.params.releaseId,
            confirm: request.body.confirm,
            allowRollbackLoss: request.body.allowRollbackLoss,
          },
        );
        return {
          releaseId: result.release.id,
          status: result.release.status as 'inactive' | 'failed',
          artifactRetained: false as const,
          freedBytes: result.freedBytes,
          removedSnapshot: result.removedSnapshot,
        };
      },
    );
  };
}

import type { FeatureContext } from '../core/feature-context.js';
import { bearerOrSession, type HttpApp } from '../core/http/create-http-app.js';
import { SvcError } from '../core/errors.js';
import { authenticate, findOrganization, isAuthorized, listMemberships, scopedProjectId } from '../identity/index.js';
import { requireProjectPermission } from '../projects/index.js';
import { auditPageSchema, auditQuerySchema, auditRoutes as r, projectAuditQuerySchema } from './contract.js';
import { readAuditPage } from './audit-feed.js';
import { projectParamsSchema } from '../projects/contract.js';

const tags = ['audit'];

/**
 * `GET /api/audit`: organizations where the caller's current role permits `audit` (viewers are
 * excluded); project-scoped tokens need `audit` and see only their project.
 * `GET /api/projects/:id/audit`: one project's history (404 once the project is deleted).
 */
export function auditRoutes(ctx: FeatureContext) {
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      r.feed,
      {
        schema: {
          tags,
          security: bearerOrSession,
          summary: 'Workspace audit history, newest first, cursor-paginated',
          querystring: auditQuerySchema,
          response: { 200: auditPageSchema },
        },
      },
      async (request) => {
        const principal = authenticate(ctx, request);
        const scope = scopedProjectId(principal);
        let candidates = listMemberships(ctx, principal.user.id).map((m) => m.id);
        if (request.query.organizationId !== undefined) {
          const org = findOrganization(ctx, request.query.organizationId);
          if (!org || !candidates.includes(org.id)) throw new SvcError('SVC_ORG_NOT_FOUND');
          candidates = [org.id];
        }
        const allowed = candidates.filter((organizationId) => isAuthorized(ctx, principal, { permission: 'audit', organizationId, projectId: scope }));
        if (allowed.length === 0) throw new SvcError('SVC_FORBIDDEN', 'Your current role or token does not permit reading the audit history here.');
        return readAuditPage(ctx, { organizationIds: allowed, projectId: scope }, request.query);
      },
    );

    app.get(
      r.projectFeed,
      {
        schema: {
          tags,
          security: bearerOrSession,
          summary: "One project's audit history, newest first",
          params: projectParamsSchema,
          querystring: projectAuditQuerySchema,
          response: { 200: auditPageSchema },
        },
      },
      async (request) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'audit');
        return readAuditPage(ctx, { organizationIds: [project.organization_id], projectId: project.id }, request.query);
      },
    );
  };
}

import type { FeatureContext } from '../core/feature-context.js';
import { bearerOrSession, type HttpApp } from '../core/http/create-http-app.js';
import { SvcError } from '../core/errors.js';
import { allowsWithRole, authenticate, currentRole, findOrganization, listMemberships, platformOrigin } from '../identity/index.js';
import {
  createProjectBodySchema,
  dashboardResponseSchema,
  projectListQuerySchema,
  projectListResponseSchema,
  projectParamsSchema,
  projectResponseSchema,
  projectRoutes as r,
} from './contract.js';
import { createProject } from './create-project.js';
import { requireProjectPermission } from './project-access.js';
import { findProject, listMemberProjects, listProjects, toProject, type MemberProjectRow } from './project-store.js';

const tags = ['projects'];
const security = bearerOrSession;

/** `/api/projects` (create, list, status) and `/api/dashboard`. */
export function projectRoutes(ctx: FeatureContext) {
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      r.projects,
      {
        schema: {
          tags,
          security,
          summary: 'Projects visible to the caller (read permission; scoped tokens see their project)',
          querystring: projectListQuerySchema,
          response: { 200: projectListResponseSchema },
        },
      },
      (request, reply) => {
        // Synchronous handler (reply.send, no promise): this is the hottest authenticated route.
        const principal = authenticate(ctx, request);
        const origin = platformOrigin(request, ctx.config.publicUrl);
        // Each project is checked against the caller's current role in its organization, read in this request.
        let rows: MemberProjectRow[];
        if (request.query.organizationId === undefined) rows = listMemberProjects(ctx, principal.user.id);
        else {
          const org = findOrganization(ctx, request.query.organizationId);
          const role = org ? currentRole(ctx, org.id, principal.user.id) : null;
          if (!org || role === null) throw new SvcError('SVC_ORG_NOT_FOUND');
          rows = listProjects(ctx, [org.id])
            .filter((p) => !p.preview_of)
            .map((p) => ({ ...p, member_role: role }));
        }
        const visible = rows.filter((p) =>
          allowsWithRole(principal, { permission: 'read', organizationId: p.organization_id, projectId: p.id }, p.member_role),
        );
        void reply.send({ projects: visible.map((p) => toProject(p, origin, ctx.config.appDomain)) });
      },
    );

    app.post(
      r.projects,
      {
        schema: {
          tags,
          security,
          summary: 'Create a project in an organization; creates its root directory',
          body: createProjectBodySchema,
          response: { 201: projectResponseSchema },
        },
      },
      async (request, reply) => {
        const principal = authenticate(ctx, request);
        const project = createProject(ctx, principal, request.body);
        return reply.status(201).send({ project: toProject(project, platformOrigin(request, ctx.config.publicUrl), ctx.config.appDomain) });
      },
    );

    app.get(
      r.project,
      { schema: { tags, security, summary: 'Project details and status', params: projectParamsSchema, response: { 200: projectResponseSchema } } },
      async (request) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        return { project: toProject(project, platformOrigin(request, ctx.config.publicUrl), ctx.config.appDomain) };
      },
    );

    app.get(
      r.dashboard,
      {
        schema: { tags: ['dashboard'], security, summary: 'Dashboard: organizations with role and their projects', response: { 200: dashboardResponseSchema } },
      },
      async (request) => {
        const principal = authenticate(ctx, request);
        const origin = platformOrigin(request, ctx.config.publicUrl);
        return {
          user: { id: principal.user.id, email: principal.user.email, name: principal.user.name },
          organizations: listMemberships(ctx, principal.user.id).map((org) => ({
            id: org.id,
            name: org.name,
            slug: org.slug,
            role: org.role,
            projects: listProjects(ctx, [org.id])
              .filter((p) => !p.preview_of) // previews are listed by their production project
              .filter((p) => allowsWithRole(principal, { permission: 'read', organizationId: org.id, projectId: p.id }, org.role))
              .map((p) => toProject(p, origin, ctx.config.appDomain)),
          })),
        };
      },
    );
  };
}

/** Project lookup for other features (id or slug → id and owning organization). */
export function resolveProject(ctx: FeatureContext, idOrSlug: string): { id: string; organizationId: string } | undefined {
  const row = findProject(ctx, idOrSlug);
  return row && { id: row.id, organizationId: row.organization_id };
}

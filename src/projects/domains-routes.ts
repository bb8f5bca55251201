// HTTP routes of custom domains: list (`read`), add and remove (`projects`).
import type { FeatureContext } from '../core/feature-context.js';
import { bearerOrSession, type HttpApp } from '../core/http/create-http-app.js';
import { actorOf } from '../identity/index.js';
import { z } from 'zod';
import { SvcError } from '../core/errors.js';
import { requireProjectPermission } from './project-access.js';
import {
  addDomainBodySchema,
  domainListResponseSchema,
  domainParamsSchema,
  domainResponseSchema,
  domainRoutes as r,
  removeDomainResponseSchema,
} from './domains-contract.js';
import type { DomainsFeature } from './domains.js';

const tags = ['domains'];
const security = bearerOrSession;
const projectParams = z.object({ id: z.string().min(1).max(100).describe('project id or slug') });

/** Register the domain routes. */
export function domainsRoutes(ctx: FeatureContext, domains: DomainsFeature) {
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      r.domains,
      { schema: { tags, security, summary: 'Custom domains of the project', params: projectParams, response: { 200: domainListResponseSchema } } },
      async (request) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        return { domains: domains.list(project.id), defaultHost: `${project.slug}.${ctx.config.appDomain}` };
      },
    );
    app.post(
      r.domains,
      {
        schema: {
          tags,
          security,
          summary: "Add a custom domain (the ingress routes it at once; one project per domain; the platform's own names are reserved)",
          params: projectParams,
          body: addDomainBodySchema,
          response: { 201: domainResponseSchema },
        },
      },
      async (request, reply) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'projects');
        // A preview lives only as long as its pull request; custom domains belong to production.
        if (project.preview_of) throw new SvcError('SVC_DOMAIN_PREVIEW', 'A pull request preview is served only at its pr-<n>--<slug> host.');
        const domain = domains.add({ project: { id: project.id, organizationId: project.organization_id }, actor: actorOf(principal) }, request.body.domain);
        return reply.status(201).send({ domain });
      },
    );
    app.delete(
      r.domain,
      { schema: { tags, security, summary: 'Remove a custom domain', params: domainParamsSchema, response: { 200: removeDomainResponseSchema } } },
      async (request) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'projects');
        const domain = domains.remove(
          { project: { id: project.id, organizationId: project.organization_id }, actor: actorOf(principal) },
          request.params.domain,
        );
        return { removed: true as const, domain };
      },
    );
  };
}

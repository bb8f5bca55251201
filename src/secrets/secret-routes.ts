// HTTP routes of secrets: list names, set (write-only value), delete. Permission `secrets`. Each
// route works on one scope, `?scope=production` (the default) or `?scope=preview`.
import type { FeatureContext } from '../core/feature-context.js';
import { bearerOrSession, type HttpApp } from '../core/http/create-http-app.js';
import { actorOf } from '../identity/index.js';
import { requireProjectPermission } from '../projects/index.js';
import {
  deleteSecretResponseSchema,
  secretListResponseSchema,
  secretParamsSchema,
  secretRoutes as r,
  secretScopeQuerySchema,
  setSecretBodySchema,
  setSecretResponseSchema,
} from './contract.js';
import type { SecretsFeature } from './secrets-feature.js';
import { z } from 'zod';

const tags = ['secrets'];
const security = bearerOrSession;
const projectParams = z.object({ id: z.string().min(1).max(100).describe('project id or slug') });

/** Register the secrets routes. */
export function secretRoutes(ctx: FeatureContext, secrets: SecretsFeature) {
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      r.secrets,
      {
        schema: {
          tags,
          security,
          summary: 'Secret names and timestamps of one scope (values are never returned; secrets permission)',
          params: projectParams,
          querystring: secretScopeQuerySchema,
          response: { 200: secretListResponseSchema },
        },
      },
      async (request) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'secrets');
        return { secrets: secrets.list(project.id, request.query.scope) };
      },
    );

    app.put(
      r.secret,
      {
        schema: {
          tags,
          security,
          summary: 'Create or replace a secret (AES-256-GCM at rest; applies on the next release or supervised restart)',
          params: secretParamsSchema,
          querystring: secretScopeQuerySchema,
          body: setSecretBodySchema,
          response: { 200: setSecretResponseSchema, 201: setSecretResponseSchema },
        },
      },
      async (request, reply) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'secrets');
        const result = secrets.set(
          { project: { id: project.id, organizationId: project.organization_id }, actor: actorOf(principal) },
          request.params.name,
          request.body.value,
          request.query.scope,
        );
        return reply.status(result.created ? 201 : 200).send({ ...result, effective: 'next-release-or-restart' as const });
      },
    );

    app.delete(
      r.secret,
      {
        schema: {
          tags,
          security,
          summary: 'Delete a secret (applies on the next release or supervised restart)',
          params: secretParamsSchema,
          querystring: secretScopeQuerySchema,
          response: { 200: deleteSecretResponseSchema },
        },
      },
      async (request) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'secrets');
        const { scope } = request.query;
        secrets.delete({ project: { id: project.id, organizationId: project.organization_id }, actor: actorOf(principal) }, request.params.name, scope);
        return { deleted: true as const, name: request.params.name, scope };
      },
    );
  };
}

import type { FeatureContext } from '../../core/feature-context.js';
import type { HttpApp } from '../../core/http/create-http-app.js';
import { authenticate } from '../authenticate.js';
import { identityRoutes as r, meResponseSchema, permissions } from '../contract.js';
import { listMemberships, toMembership } from '../org-store.js';
import { toUser } from '../user-store.js';

/** `GET /api/me`: the caller, their organizations and what the credential carries. */
export function meRoutes(ctx: FeatureContext) {
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      r.me,
      {
        schema: {
          tags: ['auth'],
          security: [{ bearer: [] }, { session: [] }],
          summary: 'The authenticated user, organizations and credential',
          response: { 200: meResponseSchema },
        },
      },
      async (request) => {
        const principal = authenticate(ctx, request);
        return {
          user: toUser(principal.user),
          organizations: listMemberships(ctx, principal.user.id).map(toMembership),
          auth:
            principal.kind === 'token'
              ? { type: 'token' as const, tokenId: principal.token.id, projectId: principal.token.project_id, permissions: principal.permissions }
              : { type: 'session' as const, tokenId: null, projectId: null, permissions: [...permissions] },
        };
      },
    );
  };
}

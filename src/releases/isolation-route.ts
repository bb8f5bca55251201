// GET /api/isolation: how apps are isolated on this control plane, for every signed-in user or token.
// Tenants see it too, not only the administrator: whether their app shares a host with unisolated
// apps is theirs to know.
import type { FeatureContext } from '../core/feature-context.js';
import { bearerOrSession, type HttpApp } from '../core/http/create-http-app.js';
import { authenticate } from '../identity/index.js';
import { isolationResponseSchema, isolationRoutes, type Isolation, type IsolationResponse } from './isolation-contract.js';

/** Register the isolation route; `isolation` is the releases feature's view of its runner. */
export function isolationRoute(ctx: FeatureContext, isolation: () => Isolation) {
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      isolationRoutes.isolation,
      {
        schema: {
          tags: ['releases'],
          security: bearerOrSession,
          summary: 'How apps are isolated here: sandbox, containers or unsandboxed, and whether apps can start',
          response: { 200: isolationResponseSchema },
        },
      },
      async (request): Promise<IsolationResponse> => {
        authenticate(ctx, request);
        return { isolation: isolation() };
      },
    );
  };
}

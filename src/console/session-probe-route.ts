// GET /api/console/session: the browser session (user + CSRF token) or `signedIn: false`, always 200.
// Bearer tokens are not sessions: a request with one is answered as signed out.
import { isoTime, type FeatureContext } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import type { HttpApp } from '../core/http/create-http-app.js';
import { authenticate } from '../identity/index.js';
import { consoleApiRoutes, consoleSessionResponseSchema, type ConsoleSessionResponse } from './contract.js';

/** Register the console's session probe. */
export function sessionProbeRoute(ctx: FeatureContext) {
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      consoleApiRoutes.session,
      {
        schema: {
          tags: ['console'],
          summary: 'Whether a browser session is active, with its user and CSRF token (always 200)',
          security: [{ session: [] }],
          response: { 200: consoleSessionResponseSchema },
        },
      },
      async (request): Promise<ConsoleSessionResponse> => {
        if (request.headers.authorization !== undefined) return { signedIn: false, session: null };
        try {
          const principal = authenticate(ctx, request, { token: false });
          if (principal.kind !== 'session') return { signedIn: false, session: null };
          const { user } = principal;
          return {
            signedIn: true,
            session: { user: { id: user.id, email: user.email, name: user.name, createdAt: isoTime(user.created_at) }, csrfToken: principal.csrfToken },
          };
        } catch (error) {
          if (error instanceof SvcError && error.status === 401) return { signedIn: false, session: null };
          throw error;
        }
      },
    );
  };
}

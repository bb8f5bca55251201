import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FeatureContext } from '../../core/feature-context.js';
import type { HttpApp } from '../../core/http/create-http-app.js';
import { SvcError } from '../../core/errors.js';
import type { AccountService, NewSession } from '../account-service.js';
import { authenticate } from '../authenticate.js';
import {
  identityRoutes as r,
  invitedRegisterBodySchema,
  loginBodySchema,
  okResponseSchema,
  registerBodySchema,
  registrationStatusSchema,
  sessionResponseSchema,
} from '../contract.js';
import { platformOrigin } from '../same-origin.js';
import { clearSessionCookie, secureCookies, setSessionCookie } from '../session-cookie.js';
import { deleteSession } from '../session-store.js';
import { toUser } from '../user-store.js';

const tags = ['auth'];

/**
 * Pre-session browser requests (login, register) have no CSRF token yet; a cross-site Origin or
 * Sec-Fetch-Site is refused, and JSON-only bodies force a CORS preflight cross-site.
 */
function rejectCrossSite(ctx: FeatureContext, request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== platformOrigin(request, ctx.config.publicUrl)) throw new SvcError('SVC_ORIGIN_REJECTED');
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') throw new SvcError('SVC_ORIGIN_REJECTED');
}

function startSession(ctx: FeatureContext, request: FastifyRequest, reply: FastifyReply, session: NewSession) {
  setSessionCookie(reply, session.cookieValue, Math.floor((session.expiresAt - ctx.clock.now()) / 1000), secureCookies(ctx, request));
  return { user: toUser(session.user), csrfToken: session.csrfToken };
}

/** `/__svc/auth/*`: registration (bootstrap/public/invited), login, logout, session. */
export function authRoutes(ctx: FeatureContext, accounts: AccountService) {
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      r.registration,
      { schema: { tags, summary: 'Registration mode and whether self-registration is open', response: { 200: registrationStatusSchema } } },
      async () => ({
        mode: ctx.config.registration,
        open: accounts.registrationOpen(),
      }),
    );

    app.post(
      r.register,
      {
        schema: {
          tags,
          summary: 'Create an account (bootstrap: first account only; public; never when disabled) and sign in',
          body: registerBodySchema,
          response: { 201: sessionResponseSchema },
        },
      },
      async (request, reply) => {
        rejectCrossSite(ctx, request);
        const session = await accounts.register(request.body);
        return reply.status(201).send(startSession(ctx, request, reply, session));
      },
    );

    app.post(
      r.invitedRegister,
      {
        schema: {
          tags,
          summary: 'Create an account bound to an invitation (works in every registration mode) and sign in',
          body: invitedRegisterBodySchema,
          response: { 201: sessionResponseSchema },
        },
      },
      async (request, reply) => {
        rejectCrossSite(ctx, request);
        const session = await accounts.registerInvited(request.body);
        return reply.status(201).send(startSession(ctx, request, reply, session));
      },
    );

    app.post(
      r.login,
      {
        schema: { tags, summary: 'Sign in with email and password; sets the session cookie', body: loginBodySchema, response: { 200: sessionResponseSchema } },
      },
      async (request, reply) => {
        rejectCrossSite(ctx, request);
        const session = await accounts.login(request.body, request.ip);
        return startSession(ctx, request, reply, session);
      },
    );

    app.post(
      r.logout,
      { schema: { tags, summary: 'End the browser session (session + CSRF)', security: [{ session: [] }], response: { 200: okResponseSchema } } },
      async (request, reply) => {
        const principal = authenticate(ctx, request, { token: false });
        if (principal.kind === 'session') deleteSession(ctx, principal.sessionIdHash);
        clearSessionCookie(reply, secureCookies(ctx, request));
        return { ok: true as const };
      },
    );

    app.get(
      r.session,
      {
        schema: {
          tags,
          summary: 'The signed-in user and the CSRF token for state-changing requests',
          security: [{ session: [] }],
          response: { 200: sessionResponseSchema },
        },
      },
      async (request) => {
        const principal = authenticate(ctx, request, { token: false });
        if (principal.kind !== 'session') throw new SvcError('SVC_AUTH_REQUIRED');
        return { user: toUser(principal.user), csrfToken: principal.csrfToken };
      },
    );
  };
}

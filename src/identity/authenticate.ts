import type { FastifyRequest } from 'fastify';
import type { FeatureContext } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import { constantTimeEqual } from '../core/token-hash.js';
import { CSRF_HEADER, TOKEN_PREFIX } from './contract.js';
import type { Principal } from './principal.js';
import { assertSameOrigin, isStateChanging } from './same-origin.js';
import { readSessionCookie } from './session-cookie.js';
import { findSession } from './session-store.js';
import { findTokenWithUser, tokenPermissions, tokenStatus, touchToken } from './token-store.js';
import { getUser } from './user-store.js';

export interface AuthenticateOptions {
  /** Accept bearer tokens (default true). */
  token?: boolean;
  /** Accept browser sessions (default true). */
  session?: boolean;
}

/**
 * Resolve the caller from `Authorization: Bearer svc_…` or the session cookie. Cookie-authenticated
 * state-changing requests must also be same-origin and carry the session's CSRF token.
 */
export function authenticate(ctx: FeatureContext, request: FastifyRequest, options: AuthenticateOptions = {}): Principal {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match || !match[1]!.startsWith(TOKEN_PREFIX)) throw new SvcError('SVC_TOKEN_INVALID', 'Authorization must be "Bearer svc_…".');
    // Token, user and the token's ancestors are read fresh on every request (one query): a revoked
    // token, or one whose parent was revoked or expired, fails at once.
    const found = findTokenWithUser(ctx, match[1]!);
    if (!found) throw new SvcError('SVC_TOKEN_INVALID');
    const { token: row, user, ancestry } = found;
    const status = tokenStatus(row, ctx.clock.now(), ancestry);
    if (status === 'revoked') throw new SvcError('SVC_TOKEN_REVOKED');
    if (status === 'expired') throw new SvcError('SVC_TOKEN_EXPIRED');
    if (options.token === false) throw new SvcError('SVC_AUTH_REQUIRED', 'This route needs a browser session.');
    if (!user) throw new SvcError('SVC_TOKEN_INVALID');
    touchToken(ctx, row);
    return { kind: 'token', user, token: row, permissions: tokenPermissions(row) };
  }
  const cookie = readSessionCookie(ctx, request);
  const session = cookie ? findSession(ctx, cookie) : undefined;
  if (!session) throw new SvcError('SVC_AUTH_REQUIRED');
  if (options.session === false) throw new SvcError('SVC_AUTH_REQUIRED', 'This route needs a bearer token.');
  const user = getUser(ctx, session.user_id);
  if (!user) throw new SvcError('SVC_AUTH_REQUIRED');
  if (isStateChanging(request.method)) {
    assertSameOrigin(request, ctx.config.publicUrl);
    const sent = request.headers[CSRF_HEADER];
    if (typeof sent !== 'string' || !constantTimeEqual(sent, session.csrf_token)) throw new SvcError('SVC_CSRF_INVALID');
  }
  return { kind: 'session', user, sessionIdHash: session.id_hash, csrfToken: session.csrf_token };
}

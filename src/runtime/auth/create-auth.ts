// Built-in email + password authentication mounted at {prefix}/auth: signup, signin, signout, session.
// Resolves the caller of every request from the HttpOnly session cookie and checks CSRF tokens.
import { z } from 'zod';
import type { AuthOptions } from '../functions/define-backend.js';
import type { Identity } from '../engine.js';
import { RuntimeError } from '../errors.js';
import { readJsonBody } from '../http/read-body.js';
import { jsonResponse } from '../http/responses.js';
import { CSRF_HEADER, SESSION_COOKIE, readCookie, sessionCookie } from './cookies.js';
import { FailureLimiter } from './failure-limiter.js';
import { dummyHash, hashPassword, verifyPassword } from './password.js';
import { SessionStore, safeEqual, type Session } from './session-store.js';
import type BetterSqlite3 from 'better-sqlite3';

const Credentials = z.object({ email: z.string().trim().toLowerCase().email().max(254), password: z.string().max(1024) }).strict();

/** The auth layer used by the Fetch handler. */
export interface Auth {
  /** The session of the request's cookie, or null. */
  session(request: Request): Session | null;
  /** Throws SVC_RUNTIME_CSRF unless the request carries the session's CSRF token. */
  checkCsrf(request: Request, session: Session): void;
  /** Whether the identity's session is still signed in. */
  isActive(identity: Identity): boolean;
  /** Handle `{prefix}/auth/<route>`. */
  handle(route: string, request: Request): Promise<Response>;
}

/** Create the auth layer over the app database. */
export function createAuth(options: Required<AuthOptions>, sqlite: BetterSqlite3.Database, now: () => number = Date.now): Auth {
  const store = new SessionStore(sqlite, now);
  const limiter = new FailureLimiter(10, 15 * 60 * 1000, now);

  function secure(request: Request): boolean {
    return options.secureCookie === 'auto' ? new URL(request.url).protocol === 'https:' : options.secureCookie;
  }

  function signedIn(request: Request, user: { id: string; email: string }, status: number): Response {
    const { token, session } = store.createSession(user, options.sessionTtlMs);
    return jsonResponse(
      status,
      { user: { id: user.id, email: user.email }, csrfToken: session.csrfToken },
      { 'set-cookie': sessionCookie(token, options.sessionTtlMs / 1000, secure(request)) },
    );
  }

  async function credentials(request: Request): Promise<z.infer<typeof Credentials>> {
    const parsed = Credentials.safeParse(await readJsonBody(request, 16 * 1024));
    if (!parsed.success) throw new RuntimeError('SVC_RUNTIME_INVALID_ARGUMENTS', 'Send { "email": "...", "password": "..." } with a valid email.');
    return parsed.data;
  }

  const auth: Auth = {
    session(request) {
      const token = readCookie(request.headers.get('cookie'), SESSION_COOKIE);
      return token === undefined || token.length > 128 ? null : store.findByToken(token);
    },

    checkCsrf(request, session) {
      const sent = request.headers.get(CSRF_HEADER);
      if (sent === null || !safeEqual(sent, session.csrfToken)) throw new RuntimeError('SVC_RUNTIME_CSRF', `Missing or wrong ${CSRF_HEADER} header.`);
    },

    isActive: (identity) => store.isActive(identity.sessionId),

    async handle(route, request) {
      const method = request.method.toUpperCase();
      if (route === 'session') {
        if (method !== 'GET') throw new RuntimeError('SVC_RUNTIME_METHOD_NOT_ALLOWED', 'Use GET.');
        const session = auth.session(request);
        return jsonResponse(
          200,
          session === null
            ? { user: null, csrfToken: null }
            : { user: { id: session.identity.userId, email: session.identity.email }, csrfToken: session.csrfToken },
        );
      }
      if (method !== 'POST') throw new RuntimeError('SVC_RUNTIME_METHOD_NOT_ALLOWED', 'Use POST.');
      if (route === 'signup') {
        if (!options.allowSignup) throw new RuntimeError('SVC_RUNTIME_AUTH_SIGNUP_CLOSED', 'Sign-up is closed.');
        const { email, password } = await credentials(request);
        if (password.length < options.minPasswordLength)
          throw new RuntimeError('SVC_RUNTIME_INVALID_ARGUMENTS', `The password needs at least ${options.minPasswordLength} characters.`);
        const user = store.createUser(email, await hashPassword(password));
        if (user === null) throw new RuntimeError('SVC_RUNTIME_AUTH_EMAIL_TAKEN', 'An account with this email exists.');
        return signedIn(request, user, 201);
      }
      if (route === 'signin') {
        const { email, password } = await credentials(request);
        if (limiter.isBlocked(email)) throw new RuntimeError('SVC_RUNTIME_RATE_LIMITED', 'Too many failed sign-ins for this email; wait 15 minutes.');
        const user = store.findUser(email);
        const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyHash()));
        if (user === undefined || !ok) {
          limiter.recordFailure(email);
          throw new RuntimeError('SVC_RUNTIME_AUTH_INVALID_CREDENTIALS', 'Wrong email or password.');
        }
        limiter.reset(email);
        return signedIn(request, user, 200);
      }
      if (route === 'signout') {
        const token = readCookie(request.headers.get('cookie'), SESSION_COOKIE);
        const session = auth.session(request);
        if (session !== null && token !== undefined) {
          auth.checkCsrf(request, session);
          store.deleteByToken(token);
        }
        return jsonResponse(200, { user: null }, { 'set-cookie': sessionCookie('', 0, secure(request)) });
      }
      throw new RuntimeError('SVC_RUNTIME_NOT_FOUND', `No auth route "${route}".`);
    },
  };
  return auth;
}

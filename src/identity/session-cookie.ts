import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FeatureContext } from '../core/feature-context.js';
import { sessionCookieName } from './contract.js';
import { platformOrigin } from './same-origin.js';

// Cookies are parsed and serialized by @fastify/cookie, registered in createHttpApp
// (src/core/http/create-http-app.ts); this file only decides the session cookie's name and attributes.

/**
 * Whether the platform is served over https: its session cookie is then Secure and carries the
 * `__Host-` name, which browsers accept only from this host (no Domain), so no other host can plant it.
 */
export function secureCookies(ctx: FeatureContext, request: FastifyRequest): boolean {
  return platformOrigin(request, ctx.config.publicUrl).startsWith('https:');
}

/**
 * The session cookie's value under the name for this request's origin. On https only the `__Host-`
 * name counts: a plain-named cookie there may have been set by another host. When the name repeats in
 * the Cookie header, the first occurrence counts.
 */
export function readSessionCookie(ctx: FeatureContext, request: FastifyRequest): string | undefined {
  return request.cookies[sessionCookieName(secureCookies(ctx, request))];
}

/** Set the HttpOnly, SameSite=Lax, Path=/ session cookie (Secure and `__Host-` named when the platform origin is https). */
export function setSessionCookie(reply: FastifyReply, value: string, maxAgeSeconds: number, secure: boolean): void {
  void reply.setCookie(sessionCookieName(secure), value, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    maxAge: Math.max(0, Math.floor(maxAgeSeconds)),
    secure,
  });
}

/** Expire the session cookie. */
export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  setSessionCookie(reply, '', 0, secure);
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FeatureContext } from '../core/feature-context.js';
import { sessionCookieName } from './contract.js';
import { platformOrigin } from './same-origin.js';

/**
 * Whether the platform is served over https: its session cookie is then Secure and carries the
 * `__Host-` name, which browsers accept only from this host (no Domain), so no other host can plant it.
 */
export function secureCookies(ctx: FeatureContext, request: FastifyRequest): boolean {
  return platformOrigin(request, ctx.config.publicUrl).startsWith('https:');
}

/** Read one cookie from the Cookie header (first occurrence wins). */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/**
 * The session cookie's value under the name for this request's origin. On https only the `__Host-`
 * name counts: a plain-named cookie there may have been set by another host.
 */
export function readSessionCookie(ctx: FeatureContext, request: FastifyRequest): string | undefined {
  return readCookie(request, sessionCookieName(secureCookies(ctx, request)));
}

/** Set the HttpOnly, SameSite=Lax session cookie (Secure and `__Host-` named when the platform origin is https). */
export function setSessionCookie(reply: FastifyReply, value: string, maxAgeSeconds: number, secure: boolean): void {
  const attributes = [`${sessionCookieName(secure)}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`];
  if (secure) attributes.push('Secure');
  void reply.header('set-cookie', attributes.join('; '));
}

/** Expire the session cookie. */
export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  setSessionCookie(reply, '', 0, secure);
}

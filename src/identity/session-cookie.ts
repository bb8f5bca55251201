import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from './contract.js';

/** Read one cookie from the Cookie header (first occurrence wins). */
export function readCookie(request: FastifyRequest, name: string = SESSION_COOKIE): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** Set the HttpOnly, SameSite=Lax session cookie (Secure when the platform origin is https). */
export function setSessionCookie(reply: FastifyReply, value: string, maxAgeSeconds: number, secure: boolean): void {
  const attributes = [`${SESSION_COOKIE}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`];
  if (secure) attributes.push('Secure');
  void reply.header('set-cookie', attributes.join('; '));
}

/** Expire the session cookie. */
export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  setSessionCookie(reply, '', 0, secure);
}

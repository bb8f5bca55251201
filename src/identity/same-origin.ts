import type { FastifyRequest } from 'fastify';
import { SvcError } from '../core/errors.js';

/** Origins this request may legitimately come from: the configured public URL, else the Host it was sent to. */
export function platformOrigin(request: FastifyRequest, publicUrl: string | null): string {
  return publicUrl ?? `${request.protocol}://${request.headers.host ?? 'localhost'}`;
}

/**
 * Reject cross-site browser requests. The Origin header must equal the platform origin; without
 * Origin, Sec-Fetch-Site must say same-origin; a request with neither is refused (fail closed).
 */
export function assertSameOrigin(request: FastifyRequest, publicUrl: string | null): void {
  const expected = platformOrigin(request, publicUrl);
  const origin = request.headers.origin;
  if (origin !== undefined) {
    if (origin !== expected) throw new SvcError('SVC_ORIGIN_REJECTED', `Origin ${origin} is not ${expected}.`);
    return;
  }
  const site = request.headers['sec-fetch-site'];
  if (site === 'same-origin') return;
  throw new SvcError('SVC_ORIGIN_REJECTED', 'A browser request without a same-origin Origin header was refused.');
}

/** Whether the HTTP method changes state (needs same-origin and CSRF checks for cookie auth). */
export function isStateChanging(method: string): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
}

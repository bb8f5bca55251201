// The metrics endpoint's own credential: SVC_METRICS_TOKEN, sent by Prometheus as a bearer token.
// It is separate from user tokens so a scraper never holds a credential that can act on projects. Pure.
import { createHash, timingSafeEqual } from 'node:crypto';
import { SvcError } from '../../core/errors.js';

/** Environment variable holding the scrape token. */
export const METRICS_TOKEN_ENV = 'SVC_METRICS_TOKEN';

const TOKEN_SHAPE = /^[\x21-\x7e]{32,512}$/;

/** The configured token, or null when metrics are off; a malformed token stops start-up. */
export function readMetricsToken(env: Readonly<Record<string, string | undefined>>): string | null {
  const value = env[METRICS_TOKEN_ENV];
  if (value === undefined || value === '') return null;
  if (!TOKEN_SHAPE.test(value)) throw new SvcError('SVC_METRICS_CONFIG');
  return value;
}

/**
 * Whether an Authorization header carries the token. Both sides are hashed before the constant-time
 * comparison, so neither the token nor its length leaks through timing.
 */
export function bearerMatches(header: string | undefined, expectedDigest: Buffer): boolean {
  if (header === undefined || header.length < 8 || header.slice(0, 7).toLowerCase() !== 'bearer ') return false;
  return timingSafeEqual(tokenDigest(header.slice(7).trim()), expectedDigest);
}

/** SHA-256 of a token (what bearerMatches compares). */
export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

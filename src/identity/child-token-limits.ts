import { SvcError } from '../core/errors.js';
import { isoTime } from '../core/feature-context.js';
import type { Permission } from './contract.js';

const DAY_MS = 86_400_000;

export interface ChildTokenRequest {
  permissions: readonly Permission[];
  /** Days the caller asked for; undefined = the default lifetime. */
  expiresInDays: number | undefined;
}

/** The creating token, when the request was authenticated by one (null: browser session). */
export interface ParentToken {
  permissions: readonly Permission[];
  expiresAt: number;
}

/**
 * Pure: the expiry of a new token, after checking what its creating token allows. A token can
 * only pass on what it has: permissions must be a subset of its own (SVC_TOKEN_PERMISSIONS_EXCEEDED),
 * and the new token must not expire after it. The default lifetime is clamped to the parent's
 * expiry (the caller did not ask for a length); an explicit longer lifetime is refused
 * (SVC_TOKEN_LIFETIME_EXCEEDED) rather than silently shortened, so a script asking for 365 days
 * never discovers a 1-day token in production.
 */
export function childTokenLimits(request: ChildTokenRequest, parent: ParentToken | null, now: number, defaultDays: number): { expiresAt: number } {
  const asked = now + (request.expiresInDays ?? defaultDays) * DAY_MS;
  if (parent === null) return { expiresAt: asked };
  const exceeded = [...new Set(request.permissions)].filter((p) => !parent.permissions.includes(p)).sort();
  if (exceeded.length > 0) {
    throw new SvcError(
      'SVC_TOKEN_PERMISSIONS_EXCEEDED',
      `The creating token lacks ${exceeded.map((p) => `"${p}"`).join(', ')}; a token cannot grant more than it has.`,
      {
        details: { exceeded, allowed: [...parent.permissions].sort() },
      },
    );
  }
  if (asked <= parent.expiresAt) return { expiresAt: asked };
  if (request.expiresInDays === undefined) return { expiresAt: parent.expiresAt };
  throw new SvcError('SVC_TOKEN_LIFETIME_EXCEEDED', `The creating token expires at ${isoTime(parent.expiresAt)}; a token it creates cannot live longer.`, {
    details: { maxExpiresAt: isoTime(parent.expiresAt), requestedExpiresAt: isoTime(asked) },
  });
}

import type { FastifyRequest } from 'fastify';
import { cachedStatement } from '../core/control-db.js';
import { SvcError } from '../core/errors.js';
import type { FeatureContext } from '../core/feature-context.js';
import { authenticate, type Principal } from '../identity/index.js';

/**
 * Identity has no platform-administrator role, so svc treats the first registered account (the
 * bootstrap account: earliest `created_at`, then insertion order) as the platform administrator.
 */
export function isPlatformAdmin(ctx: Pick<FeatureContext, 'db'>, userId: string): boolean {
  const first = cachedStatement(ctx.db, 'SELECT id FROM users ORDER BY created_at, rowid LIMIT 1').get() as { id: string } | undefined;
  return first?.id === userId;
}

/** Authenticate a browser session (CSRF checked on mutations by `authenticate`) of the platform admin. */
export function requirePlatformAdmin(ctx: FeatureContext, request: FastifyRequest): Principal {
  const principal = authenticate(ctx, request, { token: false });
  if (!isPlatformAdmin(ctx, principal.user.id)) throw new SvcError('SVC_PLATFORM_ADMIN_REQUIRED');
  return principal;
}

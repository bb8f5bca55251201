// `GET /_svc/tls/ask` for an edge proxy's on-demand TLS (Caddy `on_demand_tls { ask … }`): 200 only
// for hosts svc serves — never the platform's own or a reserved name, whatever a project row says
// (DomainsFeature.serves) — after a constant-time check of SVC_TLS_ASK_TOKEN (query `token` or header
// x-svc-tls-ask-token). Without a configured token the lookup is disabled (503), so an unprotected
// endpoint can never make the edge request certificates for arbitrary names.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FeatureContext } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import type { HttpApp } from '../core/http/create-http-app.js';
import { domainRoutes, TLS_ASK_TOKEN_HEADER, tlsAskQuerySchema, tlsAskResponseSchema } from './domains-contract.js';
import type { DomainsFeature } from './domains.js';

/** Environment variable holding the edge lookup token (at least 16 characters). */
const TLS_ASK_TOKEN_ENV = 'SVC_TLS_ASK_TOKEN';

/** Constant-time token comparison: both sides are hashed first, so even the length does not leak. Pure. */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  const a = createHash('sha256')
    .update(given ?? '', 'utf8')
    .digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b) && given !== undefined;
}

/** Register the lookup route. */
export function tlsAskRoutes(ctx: FeatureContext, domains: Pick<DomainsFeature, 'serves'>) {
  const expected = ctx.config.env[TLS_ASK_TOKEN_ENV];
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      domainRoutes.tlsAsk,
      {
        schema: {
          tags: ['domains'],
          summary: 'Edge proxy certificate permission lookup (token-protected; 200 only for domains svc serves)',
          querystring: tlsAskQuerySchema,
          response: { 200: tlsAskResponseSchema },
        },
      },
      async (request) => {
        if (expected === undefined || expected.length < 16) throw new SvcError('SVC_TLS_ASK_DISABLED');
        const header = request.headers[TLS_ASK_TOKEN_HEADER];
        const given = request.query.token ?? (typeof header === 'string' ? header : undefined);
        if (!tokenMatches(given, expected)) throw new SvcError('SVC_TLS_ASK_FORBIDDEN');
        if (!domains.serves(request.query.domain))
          throw new SvcError('SVC_TLS_ASK_UNKNOWN_DOMAIN', `svc does not serve ${request.query.domain.slice(0, 100)}.`);
        return { allowed: true as const, domain: request.query.domain };
      },
    );
  };
}

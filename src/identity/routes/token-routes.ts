import type { FeatureContext } from '../../core/feature-context.js';
import { bearerOrSession, type HttpApp } from '../../core/http/create-http-app.js';
import { SvcError } from '../../core/errors.js';
import { appendAudit } from '../../audit/append-audit.js';
import { authenticate } from '../authenticate.js';
import { authorize } from '../authorize.js';
import {
  identityRoutes as r,
  createTokenBodySchema,
  createTokenResponseSchema,
  revokeTokenResponseSchema,
  tokenIdParamsSchema,
  tokenListResponseSchema,
  type Permission,
} from '../contract.js';
import { actorOf, type Principal } from '../principal.js';
import { getToken, insertAccessToken, listTokens, revokeTokenRow, toTokenInfo, type TokenRow } from '../token-store.js';
import type { IdentityDeps } from '../identity.js';

const tags = ['tokens'];
const security = bearerOrSession;

/** Bearer callers need the `tokens` permission to manage tokens (sessions are limited by role checks below). */
function requireTokensPermission(principal: Principal): void {
  if (principal.kind === 'token' && !principal.permissions.includes('tokens')) throw new SvcError('SVC_FORBIDDEN', 'The token lacks the "tokens" permission.');
}

/** `/api/tokens`: list, create (raw value once), revoke by id, revoke the presenting token (logout). */
export function tokenRoutes(ctx: FeatureContext, deps: IdentityDeps) {
  const auditOrg = (row: TokenRow, principal: Principal): string => {
    if (row.project_id) return deps.resolveProject(row.project_id)?.organizationId ?? principal.user.personal_org_id!;
    return principal.user.personal_org_id!;
  };
  const revoke = (principal: Principal, row: TokenRow) =>
    ctx.db.transaction(() => {
      if (row.revoked_at === null) {
        revokeTokenRow(ctx, row.id);
        appendAudit(ctx, { kind: 'token.revoke', organizationId: auditOrg(row, principal), projectId: row.project_id, actor: actorOf(principal), metadata: { tokenId: row.id, name: row.name } });
      }
      return { token: toTokenInfo(getToken(ctx, row.id)!, ctx.clock.now()) };
    }).immediate();

  return async function register(app: HttpApp): Promise<void> {
    app.get(r.tokens, { schema: { tags, security, summary: "The caller's access tokens (never their values)", response: { 200: tokenListResponseSchema } } }, async (request) => {
      const principal = authenticate(ctx, request);
      requireTokensPermission(principal);
      const scope = principal.kind === 'token' ? principal.token.project_id : null;
      const now = ctx.clock.now();
      return { tokens: listTokens(ctx, principal.user.id).filter((t) => scope === null || t.project_id === scope).map((t) => toTokenInfo(t, now)) };
    });

    app.post(r.tokens, { schema: { tags, security, summary: 'Create an account-wide or project-scoped token; the raw value is returned only here', body: createTokenBodySchema, response: { 201: createTokenResponseSchema } } }, async (request, reply) => {
      const principal = authenticate(ctx, request);
      requireTokensPermission(principal);
      const body = request.body;
      const scope = principal.kind === 'token' ? principal.token.project_id : null;
      const wanted: Permission[] = [...new Set(body.permissions)];
      if (principal.kind === 'token' && wanted.some((p) => !principal.permissions.includes(p))) {
        throw new SvcError('SVC_FORBIDDEN', 'A token cannot create a token with more permissions than it has.');
      }
      let project: { id: string; organizationId: string } | null = null;
      const requested = body.projectId ?? scope;
      if (requested) {
        project = deps.resolveProject(requested) ?? null;
        if (!project) throw new SvcError('SVC_PROJECT_NOT_FOUND');
        authorize(ctx, principal, { permission: 'tokens', organizationId: project.organizationId, projectId: project.id });
        for (const permission of wanted) authorize(ctx, principal, { permission, organizationId: project.organizationId, projectId: project.id });
      }
      const created = ctx.db.transaction(() => {
        const minted = insertAccessToken(ctx, { userId: principal.user.id, name: body.name, projectId: project?.id ?? null, permissions: wanted, expiresInDays: body.expiresInDays });
        appendAudit(ctx, {
          kind: 'token.create',
          organizationId: project?.organizationId ?? principal.user.personal_org_id!,
          projectId: project?.id ?? null,
          actor: actorOf(principal),
          metadata: { tokenId: minted.row.id, name: body.name, projectId: project?.id ?? null, permissions: wanted, expiresAt: new Date(minted.row.expires_at).toISOString() },
        });
        return minted;
      }).immediate();
      return reply.status(201).send({ token: toTokenInfo(created.row, ctx.clock.now()), accessToken: created.accessToken });
    });

    app.delete(r.currentToken, { schema: { tags, security: [{ bearer: [] }], summary: 'Revoke the token presented with this request (svc logout)', response: { 200: revokeTokenResponseSchema } } }, async (request) => {
      const principal = authenticate(ctx, request, { session: false });
      if (principal.kind !== 'token') throw new SvcError('SVC_AUTH_REQUIRED', 'This route needs a bearer token.');
      return revoke(principal, principal.token);
    });

    app.delete(r.token, { schema: { tags, security, summary: 'Revoke one of your tokens', params: tokenIdParamsSchema, response: { 200: revokeTokenResponseSchema } } }, async (request) => {
      const principal = authenticate(ctx, request);
      requireTokensPermission(principal);
      const row = getToken(ctx, request.params.id);
      const scope = principal.kind === 'token' ? principal.token.project_id : null;
      if (!row || row.user_id !== principal.user.id || (scope !== null && row.project_id !== scope)) throw new SvcError('SVC_TOKEN_NOT_FOUND');
      return revoke(principal, row);
    });
  };
}

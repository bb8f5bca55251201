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
  currentTokenResponseSchema,
  revokeTokenResponseSchema,
  tokenIdParamsSchema,
  tokenListResponseSchema,
  type Permission,
} from '../contract.js';
import { actorOf, type Principal } from '../principal.js';
import { childTokenLimits } from '../child-token-limits.js';
import { getToken, insertAccessToken, listTokens, toTokenInfo, tokenStatus, type TokenRow } from '../token-store.js';
import { revokeTokenTree, type RevokedToken } from '../token-revocation.js';
import type { IdentityDeps } from '../identity-deps.js';

const tags = ['tokens'];
const security = bearerOrSession;

/** Bearer callers need the `tokens` permission to manage tokens (sessions are limited by role checks below). */
function requireTokensPermission(principal: Principal): void {
  if (principal.kind === 'token' && !principal.permissions.includes('tokens')) throw new SvcError('SVC_FORBIDDEN', 'The token lacks the "tokens" permission.');
}

/**
 * A token created by a token-authenticated request is a child of that token: it never outlives it,
 * never carries more permissions, and is revoked with it.
 */
function assertParentLive(ctx: FeatureContext, parent: TokenRow): void {
  // Re-read inside the write transaction: the parent may have been revoked since authentication
  // (revocation cascades, so the parent's own row also speaks for its ancestors).
  const current = getToken(ctx, parent.id);
  const status = current ? tokenStatus(current, ctx.clock.now()) : 'revoked';
  if (status === 'revoked') throw new SvcError('SVC_TOKEN_REVOKED');
  if (status === 'expired') throw new SvcError('SVC_TOKEN_EXPIRED');
}

/**
 * `/api/tokens`: list, create (raw value once), revoke by id with its descendants, read or revoke
 * the presenting token (whoami, logout).
 */
export function tokenRoutes(ctx: FeatureContext, deps: IdentityDeps) {
  const auditOrg = (row: Pick<TokenRow, 'project_id'>, principal: Principal): string => {
    if (row.project_id) return deps.resolveProject(row.project_id)?.organizationId ?? principal.user.personal_org_id!;
    return principal.user.personal_org_id!;
  };
  // One transaction: the token, every token minted from it, and one audit event per revoked token.
  const revoke = (principal: Principal, row: TokenRow) =>
    ctx.db
      .transaction(() => {
        const revoked: RevokedToken[] = revokeTokenTree(ctx, row.id);
        for (const token of revoked) {
          const cascade = token.id === row.id ? {} : { cascadeFrom: row.id };
          appendAudit(ctx, {
            kind: 'token.revoke',
            organizationId: auditOrg(token, principal),
            projectId: token.project_id,
            actor: actorOf(principal),
            metadata: { tokenId: token.id, name: token.name, ...cascade },
          });
        }
        return { token: toTokenInfo(getToken(ctx, row.id)!, ctx.clock.now()) };
      })
      .immediate();

  return async function register(app: HttpApp): Promise<void> {
    app.get(
      r.tokens,
      { schema: { tags, security, summary: "The caller's access tokens (never their values)", response: { 200: tokenListResponseSchema } } },
      async (request) => {
        const principal = authenticate(ctx, request);
        requireTokensPermission(principal);
        const scope = principal.kind === 'token' ? principal.token.project_id : null;
        const now = ctx.clock.now();
        return {
          tokens: listTokens(ctx, principal.user.id)
            .filter((t) => scope === null || t.project_id === scope)
            .map((t) => toTokenInfo(t, now)),
        };
      },
    );

    app.post(
      r.tokens,
      {
        schema: {
          tags,
          security,
          summary: 'Create an account-wide or project-scoped token; the raw value is returned only here',
          body: createTokenBodySchema,
          response: { 201: createTokenResponseSchema },
        },
      },
      async (request, reply) => {
        const principal = authenticate(ctx, request);
        requireTokensPermission(principal);
        const body = request.body;
        const parent = principal.kind === 'token' ? principal.token : null;
        const scope = parent?.project_id ?? null;
        const wanted: Permission[] = [...new Set(body.permissions)];
        const { expiresAt } = childTokenLimits(
          { permissions: wanted, expiresInDays: body.expiresInDays },
          principal.kind === 'token' ? { permissions: principal.permissions, expiresAt: principal.token.expires_at } : null,
          ctx.clock.now(),
          ctx.config.tokenTtlDays,
        );
        let project: { id: string; organizationId: string } | null = null;
        const requested = body.projectId ?? scope;
        if (requested) {
          project = deps.resolveProject(requested) ?? null;
          if (!project) throw new SvcError('SVC_PROJECT_NOT_FOUND');
          authorize(ctx, principal, { permission: 'tokens', organizationId: project.organizationId, projectId: project.id });
          for (const permission of wanted) authorize(ctx, principal, { permission, organizationId: project.organizationId, projectId: project.id });
        }
        const created = ctx.db
          .transaction(() => {
            if (parent) assertParentLive(ctx, parent);
            const minted = insertAccessToken(ctx, {
              userId: principal.user.id,
              name: body.name,
              projectId: project?.id ?? null,
              permissions: wanted,
              expiresAt,
              parent,
            });
            appendAudit(ctx, {
              kind: 'token.create',
              organizationId: project?.organizationId ?? principal.user.personal_org_id!,
              projectId: project?.id ?? null,
              actor: actorOf(principal),
              metadata: {
                tokenId: minted.row.id,
                name: body.name,
                projectId: project?.id ?? null,
                permissions: wanted,
                expiresAt: new Date(minted.row.expires_at).toISOString(),
                parentTokenId: parent?.id ?? null,
              },
            });
            return minted;
          })
          .immediate();
        return reply.status(201).send({ token: toTokenInfo(created.row, ctx.clock.now()), accessToken: created.accessToken });
      },
    );

    // Any live token may read itself (no `tokens` permission): it learns nothing it could not
    // already learn by trying, and `svc whoami` must work with a deploy-only CI token.
    app.get(
      r.currentToken,
      {
        schema: {
          tags,
          security: [{ bearer: [] }],
          summary: 'The token presented with this request: scope, permissions and expiry (svc whoami)',
          response: { 200: currentTokenResponseSchema },
        },
      },
      async (request) => {
        const principal = authenticate(ctx, request, { session: false });
        if (principal.kind !== 'token') throw new SvcError('SVC_AUTH_REQUIRED', 'This route needs a bearer token.');
        return { token: toTokenInfo(principal.token, ctx.clock.now()) };
      },
    );

    app.delete(
      r.currentToken,
      {
        schema: {
          tags,
          security: [{ bearer: [] }],
          summary: 'Revoke the token presented with this request (svc logout)',
          response: { 200: revokeTokenResponseSchema },
        },
      },
      async (request) => {
        const principal = authenticate(ctx, request, { session: false });
        if (principal.kind !== 'token') throw new SvcError('SVC_AUTH_REQUIRED', 'This route needs a bearer token.');
        return revoke(principal, principal.token);
      },
    );

    app.delete(
      r.token,
      { schema: { tags, security, summary: 'Revoke one of your tokens', params: tokenIdParamsSchema, response: { 200: revokeTokenResponseSchema } } },
      async (request) => {
        const principal = authenticate(ctx, request);
        requireTokensPermission(principal);
        const row = getToken(ctx, request.params.id);
        const scope = principal.kind === 'token' ? principal.token.project_id : null;
        if (!row || row.user_id !== principal.user.id || (scope !== null && row.project_id !== scope)) throw new SvcError('SVC_TOKEN_NOT_FOUND');
        return revoke(principal, row);
      },
    );
  };
}

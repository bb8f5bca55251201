// The upload route's OIDC hook: a bearer that is a JWT (not an svc_ token) is verified as a GitHub
// Actions ID token and becomes a principal that may only `deploy` the one linked project, acting for
// the user who linked it (their current role is still checked). Anything else falls through to the
// normal token/session authentication, so JWTs are accepted on the upload route only.
import type { FastifyRequest } from 'fastify';
import type { JWTVerifyGetKey } from 'jose';
import { SvcError } from '../../core/errors.js';
import type { FeatureContext } from '../../core/feature-context.js';
import { TOKEN_PREFIX } from '../../identity/contract.js';
import { getUser, platformOrigin, type Principal } from '../../identity/index.js';
import { findProject } from '../../projects/index.js';
import { COMMIT_SHA_HEADER, REPOSITORY_ID_HEADER } from '../../releases/contract.js';
import { checkPreviewUploadClaims, checkUploadClaims, type ProjectLinkLookup } from './check-upload-claims.js';
import { createJwksSource } from './jwks-source.js';
import { consumeJti } from './jti-store.js';
import { looksLikeJwt, verifyOidcToken, type GithubOidcClaims } from './verify-oidc-token.js';

/** Resolve the caller of an upload from an OIDC bearer; null = not an OIDC request (use authenticate). */
export type UploadAuthenticator = (request: FastifyRequest, projectIdOrSlug: string, preview?: number) => Promise<Principal | null>;

export interface OidcUploadAuthOptions {
  /** The project ↔ repository link (src/github's link store in production). */
  links: ProjectLinkLookup;
  /** fetch for discovery and JWKS (default: global fetch). */
  fetch?: typeof globalThis.fetch;
  /** The preview project of a pull request of a project (null: none), for preview uploads. */
  previews?: (parentProjectId: string, number: number) => string | null;
  /** Key resolver override (default: JWKS of the configured issuer). */
  getKey?: JWTVerifyGetKey;
}

// The token may be accepted until exp + tolerance; keep its jti a little longer than that.
const KEEP_AFTER_EXPIRY_MS = 5 * 60 * 1000;

/** Build the hook from ctx.config (oidcIssuer null = OIDC off: always falls through). */
export function createOidcUploadAuth(ctx: FeatureContext, options: OidcUploadAuthOptions): UploadAuthenticator {
  const issuer = ctx.config.oidcIssuer;
  if (!issuer) return async () => null;
  const getKey = options.getKey ?? createJwksSource({ issuer, jwksUrl: ctx.config.oidcJwksUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
  return async (request, projectIdOrSlug, preview) => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!bearer || bearer.startsWith(TOKEN_PREFIX) || !looksLikeJwt(bearer)) return null;
    const audience = ctx.config.oidcAudience ?? platformOrigin(request, ctx.config.publicUrl);
    const claims = await verifyOidcToken(bearer, { getKey, issuer, audience, now: ctx.clock.now() });
    const project = findProject(ctx, projectIdOrSlug);
    const link = project ? options.links(project.id) : null;
    if (preview === undefined) {
      checkUploadClaims(claims, link, { commitSha: header(request, COMMIT_SHA_HEADER), repositoryId: header(request, REPOSITORY_ID_HEADER) });
    } else {
      checkPreviewUploadClaims(claims, link, preview);
    }
    // A preview upload acts on the pull request's preview project only (the route checks its head commit).
    const targetId = preview === undefined ? project!.id : options.previews?.(project!.id, preview);
    if (!targetId) throw new SvcError('SVC_PREVIEW_NOT_FOUND', `Pull request #${preview} has no preview (yet).`);
    const user = getUser(ctx, link!.linkedBy);
    if (!user) throw new SvcError('SVC_OIDC_PROJECT_NOT_LINKED', 'The user who linked this project no longer exists; link it again.');
    if (!consumeJti(ctx, { issuer, jti: claims.jti, keepUntil: claims.exp * 1000 + KEEP_AFTER_EXPIRY_MS, projectId: targetId })) {
      throw new SvcError('SVC_OIDC_TOKEN_REPLAYED', 'This OIDC token was already used; request a fresh one.');
    }
    return oidcPrincipal(user, targetId, claims);
  };
}

/**
 * The principal of a verified token: shaped as a project-scoped token with only `deploy`, so every
 * existing scope and permission check applies unchanged. It exists only for this request.
 */
function oidcPrincipal(user: NonNullable<ReturnType<typeof getUser>>, projectId: string, claims: GithubOidcClaims): Principal {
  const run = claims.run_id ? ` run ${claims.run_id}` : '';
  return {
    kind: 'token',
    user,
    permissions: ['deploy'],
    token: {
      id: `oidc_${claims.jti}`.slice(0, 100),
      token_hash: '',
      user_id: user.id,
      name: `GitHub Actions OIDC ${claims.repository}@${claims.ref}${run}`,
      project_id: projectId,
      permissions: JSON.stringify(['deploy']),
      created_at: claims.iat * 1000,
      expires_at: claims.exp * 1000,
      last_used_at: null,
      revoked_at: null,
    },
  };
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

// Verify a GitHub Actions OIDC token: signature against the issuer's JWKS, then iss, aud, exp, nbf
// and a bounded lifetime (so the jti replay table stays small), then the claims svc relies on.
// jose is imported by the first token verified, not at start-up.
import type { JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import { SvcError } from '../../core/errors.js';

/** The claims of a GitHub Actions ID token that upload authorization reads (others are ignored). */
const githubOidcClaimsSchema = z.object({
  iss: z.string(),
  jti: z.string().min(1).max(200),
  exp: z.number().int(),
  iat: z.number().int(),
  /** GitHub sends the numeric repository id as a string. */
  repository_id: z.string().regex(/^[1-9][0-9]{0,15}$/),
  repository: z.string().max(200),
  ref: z.string().min(1).max(500),
  sha: z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/),
  run_id: z.string().max(40).optional(),
  workflow_ref: z.string().max(500).optional(),
});
export type GithubOidcClaims = z.infer<typeof githubOidcClaimsSchema>;

export interface VerifyOidcOptions {
  getKey: JWTVerifyGetKey;
  issuer: string;
  audience: string;
  /** Milliseconds since the epoch (the control plane's clock). */
  now: number;
}

/** Tokens living longer than this are refused (GitHub's live for minutes). */
const MAX_TOKEN_AGE_SECONDS = 3600;
const CLOCK_TOLERANCE_SECONDS = 30;
// Asymmetric algorithms only: never "none" or an HMAC keyed with public material.
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384'];

/** Verify `token` and return its claims; throws SVC_OIDC_TOKEN_INVALID / _EXPIRED / SVC_OIDC_UNAVAILABLE. */
export async function verifyOidcToken(token: string, options: VerifyOidcOptions): Promise<GithubOidcClaims> {
  const { errors, jwtVerify } = await import('jose');
  let payload: unknown;
  try {
    ({ payload } = await jwtVerify(token, options.getKey, {
      issuer: options.issuer,
      audience: options.audience,
      algorithms: ALGORITHMS,
      currentDate: new Date(options.now),
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      maxTokenAge: MAX_TOKEN_AGE_SECONDS,
      requiredClaims: ['iss', 'aud', 'exp', 'iat', 'jti'],
    }));
  } catch (error) {
    if (error instanceof SvcError) throw error;
    // jose also reports an over-age `iat` as JWTExpired; only a passed `exp` is a plain expiry.
    if (error instanceof errors.JWTExpired && error.claim === 'exp') throw new SvcError('SVC_OIDC_TOKEN_EXPIRED', 'The OIDC token has expired.');
    const reason = error instanceof errors.JOSEError ? `${error.code}: ${error.message}` : 'malformed token';
    throw new SvcError('SVC_OIDC_TOKEN_INVALID', `The OIDC token was rejected (${reason}).`);
  }
  const claims = githubOidcClaimsSchema.safeParse(payload);
  if (!claims.success) {
    const issue = claims.error.issues[0]!;
    throw new SvcError('SVC_OIDC_TOKEN_INVALID', `The OIDC token's claim ${String(issue.path[0] ?? '')} is missing or malformed.`);
  }
  return claims.data;
}

/** Whether a bearer value looks like a compact JWS (three base64url parts), i.e. not an svc_ token. Pure. */
export function looksLikeJwt(value: string): boolean {
  return /^[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}$/.test(value) && value.length <= 16_384;
}

// Public surface of GitHub Actions OIDC upload authentication.
export { createOidcUploadAuth, oidcPrincipal, type UploadAuthenticator, type OidcUploadAuthOptions } from './oidc-upload-auth.js';
export { checkUploadClaims, type OidcProjectLink, type ProjectLinkLookup, type DeclaredSource } from './check-upload-claims.js';
export { verifyOidcToken, looksLikeJwt, githubOidcClaimsSchema, MAX_TOKEN_AGE_SECONDS, type GithubOidcClaims } from './verify-oidc-token.js';
export { createJwksSource, discoverJwksUrl } from './jwks-source.js';
export { consumeJti, oidcMigrations } from './jti-store.js';
export { githubLinkLookup } from './github-link-lookup.js';

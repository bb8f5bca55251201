// Public surface of GitHub Actions OIDC upload authentication.
export { createOidcUploadAuth } from './oidc-upload-auth.js';
export { oidcMigrations } from './jti-store.js';
export { githubLinkLookup } from './github-link-lookup.js';

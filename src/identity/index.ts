// Public surface of identity for other features: authenticate the caller, check permissions.
export { authenticate } from './authenticate.js';
export { allowsWithRole, authorize, authorizeWithRole, isAuthorized, type AccessRequest } from './authorize.js';
export { actorOf, credentialPermissions, scopedProjectId, type Principal } from './principal.js';
export { currentRole, listMemberships, findOrganization } from './org-store.js';
export { revokeProjectTokens } from './token-revocation.js';
export { identityMigrations } from './migrations.js';
export { createIdentity, type IdentityFeature } from './identity.js';
export { platformOrigin } from './same-origin.js';
export { getUser } from './user-store.js'; // the user a GitHub Actions OIDC upload acts for

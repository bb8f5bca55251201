// What identity needs from other features. Its own module so the routes that use it
// (token-routes.ts) and the feature that receives it (identity.ts) both import it from below.

/** Passed in by platform.ts; identity never reads other features' tables. */
export interface IdentityDeps {
  /** Look a project up by id or slug (for project-scoped tokens). */
  resolveProject(idOrSlug: string): { id: string; organizationId: string } | undefined;
}

// Public surface of projects for other features.
export { requireProjectPermission, type ProjectAccess } from './project-access.js';
export { findProject, listProjects, projectRoot, projectUrl, setProjectRelease, type ProjectRow } from './project-store.js';
export { createProject, assertProjectSlug } from './create-project.js';
export { projectRoutes, resolveProject } from './project-routes.js';
export { projectsMigrations } from './migrations.js';
export { createDomains, normalizeCustomDomain, type DomainsFeature, type DomainRouter } from './domains.js';
export { domainsMigrations } from './domains-store.js';
export { domainsRoutes } from './domains-routes.js';
export { tlsAskRoutes, TLS_ASK_TOKEN_ENV } from './tls-ask.js';
export { deleteSite, type SiteDeletionDeps, type DeletionAppControl } from './delete-project.js';
export { deleteProjectRoutes } from './delete-project-routes.js';
export { nodeDeletionFs, type DeletionFs } from './delete-project-fs.js';
export { projectUid, DEFAULT_PROJECT_UID_BASE } from './project-uid.js';

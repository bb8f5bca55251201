// Public surface of projects for other features.
export { requireProjectPermission, type ProjectAccess } from './project-access.js';
export { findProject, insertProject, listProjects, projectRoot, projectUrl, setProjectRelease, type ProjectRow } from './project-store.js';
export { eraseProject } from './delete-project.js';
export { appUrlOf, configuredOrigin } from './app-url.js';
export { projectRoutes, resolveProject } from './project-routes.js';
export { projectsMigrations } from './migrations.js';
export { createDomains, type DomainsFeature } from './domains.js';
export { domainsMigrations } from './domains-store.js';
export { domainsRoutes } from './domains-routes.js';
export { tlsAskRoutes } from './tls-ask.js';
export { deleteProjectRoutes } from './delete-project-routes.js';
export { projectUid } from './project-uid.js';

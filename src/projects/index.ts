// Public surface of projects for other features.
export { requireProjectPermission, type ProjectAccess } from './project-access.js';
export { findProject, projectRoot, projectUrl, setProjectRelease, type ProjectRow } from './project-store.js';
export { createProject, assertProjectSlug } from './create-project.js';
export { projectRoutes, resolveProject } from './project-routes.js';
export { projectsMigrations } from './migrations.js';

// Public surface of the audit log for other features.
export { auditRoutes } from './audit-routes.js';
export { auditMigrations } from './migrations.js';

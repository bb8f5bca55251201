// Public surface of the audit log for other features.
export { appendAudit, type AuditInput } from './append-audit.js';
export { auditKinds, isAuditKind, type AuditKind } from './kinds.js';
export { readAuditPage, type AuditScope } from './audit-feed.js';
export { auditRoutes } from './audit-routes.js';
export { auditMigrations } from './migrations.js';

import type { FastifyRequest } from 'fastify';
import type { FeatureContext } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import { authenticate, authorizeWithRole, currentRole, scopedProjectId, type Principal } from '../identity/index.js';
import type { Permission, Role } from '../identity/contract.js';
import { findProject, type ProjectRow } from './project-store.js';

export interface ProjectAccess {
  principal: Principal;
  project: ProjectRow;
  role: Role;
}

/**
 * The helper project routes of every feature (releases, secrets, backups…) call: authenticate,
 * load the project by id or slug, recheck current membership and role, enforce token scope and
 * permission. Non-members get SVC_PROJECT_NOT_FOUND so project existence does not leak.
 */
export function requireProjectPermission(
  ctx: FeatureContext,
  request: FastifyRequest,
  idOrSlug: string,
  permission: Permission,
  options: { accountWide?: boolean; principal?: Principal } = {},
): ProjectAccess {
  const principal = options.principal ?? authenticate(ctx, request);
  const project = findProject(ctx, idOrSlug);
  const scope = scopedProjectId(principal);
  if (project && scope !== null && scope !== project.id) throw new SvcError('SVC_TOKEN_SCOPE', 'The token is scoped to another project.');
  // The current role is read once, here, and used for both the existence and the permission check.
  const current = project ? currentRole(ctx, project.organization_id, principal.user.id) : null;
  if (!project || current === null) throw new SvcError('SVC_PROJECT_NOT_FOUND');
  const role = authorizeWithRole(
    principal,
    { permission, organizationId: project.organization_id, projectId: project.id, accountWide: options.accountWide ?? false },
    current,
  );
  return { principal, project, role };
}

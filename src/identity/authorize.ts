import type { FeatureContext } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import type { Permission, Role } from './contract.js';
import { currentRole } from './org-store.js';
import { allows } from './permissions.js';
import { credentialPermissions, scopedProjectId, type Principal } from './principal.js';

export interface AccessRequest {
  permission: Permission;
  organizationId: string;
  /** The project acted on, when there is one (project-scoped tokens must match it). */
  projectId?: string | null;
  /** The action needs an account-wide credential (session or unscoped token), e.g. project deletion. */
  accountWide?: boolean;
}

/**
 * The one permission check: rereads the caller's current membership and role from the database
 * every time, then applies token scope and token permissions. Returns the current role.
 * Throws SVC_TOKEN_SCOPE for a scope mismatch, SVC_FORBIDDEN for a missing role or permission.
 */
export function authorize(ctx: FeatureContext, principal: Principal, access: AccessRequest): Role {
  return authorizeWithRole(principal, access, currentRole(ctx, access.organizationId, principal.user.id));
}

/**
 * Pure: authorize's checks for a role the caller read from the database in this same request
 * (never a role remembered across requests). Throws like authorize; returns the role.
 */
export function authorizeWithRole(principal: Principal, access: AccessRequest, role: Role | null): Role {
  checkScope(principal, access);
  return checkRole(principal, access, role);
}

/**
 * Pure: the authorize decision for a role the caller read from the database in this same request
 * (e.g. the roles listMemberships returned), so a list check does not re-query per item.
 * Returns whether the access is allowed; never use a role remembered across requests.
 */
export function allowsWithRole(principal: Principal, access: AccessRequest, role: Role | null): boolean {
  const scope = scopedProjectId(principal);
  if (scope !== null && (access.accountWide || access.projectId !== scope)) return false;
  return role !== null && allows(role, access.permission, credentialPermissions(principal));
}

function checkScope(principal: Principal, access: AccessRequest): void {
  const scope = scopedProjectId(principal);
  if (scope !== null) {
    if (access.accountWide) throw new SvcError('SVC_TOKEN_SCOPE', 'This action needs an account-wide session or token.');
    if (access.projectId !== scope) throw new SvcError('SVC_TOKEN_SCOPE', 'The token is scoped to another project.');
  }
}

function checkRole(principal: Principal, access: AccessRequest, role: Role | null): Role {
  if (role === null) throw new SvcError('SVC_FORBIDDEN', 'You are not a member of this organization.');
  if (!allows(role, access.permission, credentialPermissions(principal))) {
    throw new SvcError(
      'SVC_FORBIDDEN',
      `Permission "${access.permission}" is not granted (role ${role}${principal.kind === 'token' ? ', token permissions' : ''}).`,
    );
  }
  return role;
}

/** Whether authorize would pass (for filtering lists without throwing). */
export function isAuthorized(ctx: FeatureContext, principal: Principal, access: AccessRequest): boolean {
  try {
    authorize(ctx, principal, access);
    return true;
  } catch (error) {
    if (error instanceof SvcError && (error.code === 'SVC_FORBIDDEN' || error.code === 'SVC_TOKEN_SCOPE')) return false;
    throw error;
  }
}

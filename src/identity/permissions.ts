import { permissions, type Permission, type Role } from './contract.js';

const all: readonly Permission[] = permissions;

/** What each organization role may do; tokens can narrow this, never widen it. */
export const rolePermissions: Readonly<Record<Role, readonly Permission[]>> = {
  owner: all,
  admin: all,
  developer: ['read', 'deploy', 'rollback', 'audit', 'secrets', 'tokens', 'projects'],
  viewer: ['read'],
};

/** Whether `role` (and, for a token, its own permission list) allows `permission`. Pure. */
export function allows(role: Role, permission: Permission, tokenPermissions: readonly Permission[] | null): boolean {
  if (!rolePermissions[role].includes(permission)) return false;
  return tokenPermissions === null || tokenPermissions.includes(permission);
}

/** Roles a member with `actorRole` may grant or change: admins cannot create or demote owners. */
export function canManageRole(actorRole: Role, targetRole: Role): boolean {
  if (actorRole === 'owner') return true;
  if (actorRole === 'admin') return targetRole !== 'owner';
  return false;
}

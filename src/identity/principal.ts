import type { Permission } from './contract.js';
import type { TokenRow } from './token-store.js';
import type { UserRow } from './user-store.js';

/** Who is calling: a browser session or a bearer token, always tied to a user. */
export type Principal =
  { kind: 'session'; user: UserRow; sessionIdHash: string; csrfToken: string } | { kind: 'token'; user: UserRow; token: TokenRow; permissions: Permission[] };

/** The audit actor for a principal (token actors name the user behind them). */
export function actorOf(principal: Principal): { type: 'user' | 'token'; id: string; name: string } {
  if (principal.kind === 'session') return { type: 'user', id: principal.user.id, name: principal.user.email };
  return { type: 'token', id: principal.token.id, name: `${principal.user.email} (token ${principal.token.name})` };
}

/** Permissions carried by the credential itself (null = a session, limited only by role). */
export function credentialPermissions(principal: Principal): Permission[] | null {
  return principal.kind === 'token' ? principal.permissions : null;
}

/** Project a token is scoped to, or null for sessions and account-wide tokens. */
export function scopedProjectId(principal: Principal): string | null {
  return principal.kind === 'token' ? principal.token.project_id : null;
}

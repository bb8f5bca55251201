import type { FeatureContext } from '../core/feature-context.js';
import { isoTime } from '../core/feature-context.js';
import type { User } from './contract.js';
import { createOrganization } from './org-store.js';
import { cachedStatement } from '../core/control-db.js';

export interface UserRow {
  id: string;
  email: string;
  name: string | null;
  password_hash: string;
  personal_org_id: string | null;
  created_at: number;
}

/** Wire shape of a user row. */
export function toUser(row: UserRow): User {
  return { id: row.id, email: row.email, name: row.name, createdAt: isoTime(row.created_at) };
}

/** Number of accounts (bootstrap registration is open while this is 0). */
export function countUsers(ctx: FeatureContext): number {
  return (cachedStatement(ctx.db, 'SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
}

/** Find an account by (lower-cased) email. */
export function findUserByEmail(ctx: FeatureContext, email: string): UserRow | undefined {
  return cachedStatement(ctx.db, 'SELECT * FROM users WHERE email = ?').get(email.toLowerCase()) as UserRow | undefined;
}

/** Find an account by id. */
export function getUser(ctx: FeatureContext, id: string): UserRow | undefined {
  return cachedStatement(ctx.db, 'SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
}

/**
 * Insert an account with its personal organization (the user is its owner). Call inside a
 * transaction together with whatever else the registration writes.
 */
export function insertUser(ctx: FeatureContext, input: { email: string; name: string | null; passwordHash: string }): UserRow {
  const now = ctx.clock.now();
  const id = ctx.ids('usr');
  const email = input.email.toLowerCase();
  cachedStatement(ctx.db, 'INSERT INTO users (id, email, name, password_hash, personal_org_id, created_at) VALUES (?, ?, ?, ?, NULL, ?)').run(
    id,
    email,
    input.name,
    input.passwordHash,
    now,
  );
  const label = input.name ?? email.split('@')[0]!;
  const org = createOrganization(ctx, { name: `${label}'s workspace`, slugBase: label, personal: true, ownerId: id });
  cachedStatement(ctx.db, 'UPDATE users SET personal_org_id = ? WHERE id = ?').run(org.id, id);
  return getUser(ctx, id)!;
}

import type { FeatureContext } from '../core/feature-context.js';
import { isoTime } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import type { Role } from './contract.js';
import { cachedStatement } from '../core/control-db.js';

export interface OrgRow {
  id: string;
  slug: string;
  name: string;
  personal: number;
  created_at: number;
}

export interface MembershipRow extends OrgRow {
  role: Role;
}

/** Wire shape of an organization as seen by one member. */
export function toMembership(row: MembershipRow) {
  return { id: row.id, name: row.name, slug: row.slug, role: row.role, createdAt: isoTime(row.created_at) };
}

/** Lower-case ASCII slug for an organization name (never empty). */
export function orgSlugBase(text: string): string {
  const base = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 30)
    .replace(/-+$/, '');
  return base.length >= 2 ? base : 'org';
}

/** Create an organization with `ownerId` as owner; picks a free slug from `slugBase` unless `slug` is exact. */
export function createOrganization(ctx: FeatureContext, input: { name: string; slugBase?: string; slug?: string; personal: boolean; ownerId: string }): OrgRow {
  const now = ctx.clock.now();
  const id = ctx.ids('org');
  let slug = input.slug;
  if (slug === undefined) {
    const base = orgSlugBase(input.slugBase ?? input.name);
    slug = base;
    for (let i = 2; findOrganization(ctx, slug); i++) slug = `${base}-${i}`;
  } else if (findOrganization(ctx, slug)) {
    throw new SvcError('SVC_ORG_SLUG_TAKEN', `Organization slug "${slug}" is taken.`);
  }
  cachedStatement(ctx.db, 'INSERT INTO organizations (id, slug, name, personal, created_at) VALUES (?, ?, ?, ?, ?)').run(
    id,
    slug,
    input.name,
    input.personal ? 1 : 0,
    now,
  );
  addMember(ctx, id, input.ownerId, 'owner');
  return { id, slug, name: input.name, personal: input.personal ? 1 : 0, created_at: now };
}

/** Find an organization by id or slug. */
export function findOrganization(ctx: FeatureContext, idOrSlug: string): OrgRow | undefined {
  return cachedStatement(ctx.db, 'SELECT * FROM organizations WHERE id = ? OR slug = ?').get(idOrSlug, idOrSlug) as OrgRow | undefined;
}

/** Add (or re-role) a member. */
export function addMember(ctx: FeatureContext, organizationId: string, userId: string, role: Role): void {
  cachedStatement(
    ctx.db,
    'INSERT INTO memberships (organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (organization_id, user_id) DO UPDATE SET role = excluded.role',
  ).run(organizationId, userId, role, ctx.clock.now());
}

/** The user's current role in an organization, read fresh from the database (never cached). */
export function currentRole(ctx: FeatureContext, organizationId: string, userId: string): Role | null {
  const row = cachedStatement(ctx.db, 'SELECT role FROM memberships WHERE organization_id = ? AND user_id = ?').get(organizationId, userId) as
    { role: Role } | undefined;
  return row?.role ?? null;
}

/** Every organization the user belongs to, with their role, oldest first. */
export function listMemberships(ctx: FeatureContext, userId: string): MembershipRow[] {
  return cachedStatement(
    ctx.db,
    'SELECT o.*, m.role FROM memberships m JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = ? ORDER BY o.created_at, o.id',
  ).all(userId) as MembershipRow[];
}

export interface MemberRow {
  user_id: string;
  email: string;
  name: string | null;
  role: Role;
  created_at: number;
}

/** Members of an organization. */
export function listMembers(ctx: FeatureContext, organizationId: string): MemberRow[] {
  return cachedStatement(
    ctx.db,
    'SELECT m.user_id, u.email, u.name, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.organization_id = ? ORDER BY m.created_at, m.rowid',
  ).all(organizationId) as MemberRow[];
}

/** Wire shape of a member row. */
export function toMember(row: MemberRow) {
  return { userId: row.user_id, email: row.email, name: row.name, role: row.role, joinedAt: isoTime(row.created_at) };
}

/** Number of owners of an organization. */
export function countOwners(ctx: FeatureContext, organizationId: string): number {
  return (cachedStatement(ctx.db, "SELECT COUNT(*) AS n FROM memberships WHERE organization_id = ? AND role = 'owner'").get(organizationId) as { n: number }).n;
}

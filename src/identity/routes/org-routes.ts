import type { FeatureContext } from '../../core/feature-context.js';
import { isoTime } from '../../core/feature-context.js';
import { bearerOrSession, type HttpApp } from '../../core/http/create-http-app.js';
import { SvcError } from '../../core/errors.js';
import { generateSecret, sha256Hex } from '../../core/token-hash.js';
import { appendAudit } from '../../audit/append-audit.js';
import { authenticate } from '../authenticate.js';
import { authorize } from '../authorize.js';
import {
  identityRoutes as r,
  createInvitationBodySchema,
  createInvitationResponseSchema,
  createOrgBodySchema,
  memberListResponseSchema,
  memberParamsSchema,
  memberResponseSchema,
  okResponseSchema,
  orgListResponseSchema,
  orgParamsSchema,
  orgResponseSchema,
  updateMemberBodySchema,
  type Role,
} from '../contract.js';
import {
  countOwners,
  createOrganization,
  currentRole,
  findOrganization,
  listMembers,
  listMemberships,
  toMember,
  toMembership,
  type OrgRow,
} from '../org-store.js';
import { canManageRole } from '../permissions.js';
import { actorOf, type Principal } from '../principal.js';
import { platformOrigin } from '../same-origin.js';
import { cachedStatement } from '../../core/control-db.js';

const tags = ['organizations'];
const security = bearerOrSession;
const ORG_SLUG = /^[a-z0-9](?:[a-z0-9]|-(?!-)){0,38}[a-z0-9]$/;
const INVITATION_DAYS = 7;

/** `/api/orgs`: list and create organizations, members, roles and invitations. */
export function orgRoutes(ctx: FeatureContext) {
  // Non-members learn nothing about an organization: it is "not found".
  const memberOrg = (principal: Principal, idOrSlug: string): OrgRow => {
    const org = findOrganization(ctx, idOrSlug);
    if (!org || currentRole(ctx, org.id, principal.user.id) === null) throw new SvcError('SVC_ORG_NOT_FOUND');
    return org;
  };
  // Changing or removing a member: the caller administers the organization and the member exists.
  const memberChange = (principal: Principal, params: { id: string; userId: string }): { org: OrgRow; actorRole: Role; targetRole: Role } => {
    const org = memberOrg(principal, params.id);
    const actorRole = authorize(ctx, principal, { permission: 'admin', organizationId: org.id, accountWide: true });
    const targetRole = currentRole(ctx, org.id, params.userId);
    if (targetRole === null) throw new SvcError('SVC_MEMBER_NOT_FOUND');
    return { org, actorRole, targetRole };
  };
  const accountWide = (principal: Principal): void => {
    if (principal.kind === 'token' && principal.token.project_id !== null)
      throw new SvcError('SVC_TOKEN_SCOPE', 'Organization management needs an account-wide credential.');
  };

  return async function register(app: HttpApp): Promise<void> {
    app.get(
      r.orgs,
      { schema: { tags, security, summary: "The caller's organizations and roles", response: { 200: orgListResponseSchema } } },
      async (request) => {
        const principal = authenticate(ctx, request);
        return { organizations: listMemberships(ctx, principal.user.id).map(toMembership) };
      },
    );

    app.post(
      r.orgs,
      {
        schema: {
          tags,
          security,
          summary: 'Create an organization; the caller becomes its owner',
          body: createOrgBodySchema,
          response: { 201: orgResponseSchema },
        },
      },
      async (request, reply) => {
        const principal = authenticate(ctx, request);
        accountWide(principal);
        const { name, slug } = request.body;
        if (slug !== undefined && !ORG_SLUG.test(slug))
          throw new SvcError('SVC_VALIDATION', 'body.slug: 2–40 lowercase ASCII letters, digits and single dashes');
        const org = ctx.db
          .transaction(() => {
            const created = createOrganization(ctx, { name, ...(slug ? { slug } : {}), personal: false, ownerId: principal.user.id });
            appendAudit(ctx, {
              kind: 'organization.create',
              organizationId: created.id,
              actor: actorOf(principal),
              metadata: { organizationId: created.id, name, slug: created.slug },
            });
            return created;
          })
          .immediate();
        return reply.status(201).send({ organization: toMembership({ ...org, role: 'owner' }) });
      },
    );

    app.get(
      r.orgMembers,
      { schema: { tags, security, summary: 'Members of an organization', params: orgParamsSchema, response: { 200: memberListResponseSchema } } },
      async (request) => {
        const principal = authenticate(ctx, request);
        const org = memberOrg(principal, request.params.id);
        authorize(ctx, principal, { permission: 'read', organizationId: org.id, accountWide: true });
        return { members: listMembers(ctx, org.id).map(toMember) };
      },
    );

    app.post(
      r.orgInvitations,
      {
        schema: {
          tags,
          security,
          summary: 'Invite an email address with a role; the invitation token is returned only here',
          params: orgParamsSchema,
          body: createInvitationBodySchema,
          response: { 201: createInvitationResponseSchema },
        },
      },
      async (request, reply) => {
        const principal = authenticate(ctx, request);
        const org = memberOrg(principal, request.params.id);
        const actorRole = authorize(ctx, principal, { permission: 'admin', organizationId: org.id, accountWide: true });
        if (!canManageRole(actorRole, request.body.role)) throw new SvcError('SVC_FORBIDDEN', `An ${actorRole} cannot invite an ${request.body.role}.`);
        const raw = generateSecret('svcinv_', 32);
        const now = ctx.clock.now();
        const invitation = {
          id: ctx.ids('inv'),
          organizationId: org.id,
          email: request.body.email,
          role: request.body.role,
          createdAt: isoTime(now),
          expiresAt: isoTime(now + INVITATION_DAYS * 86_400_000),
        };
        ctx.db
          .transaction(() => {
            cachedStatement(
              ctx.db,
              'INSERT INTO invitations (id, token_hash, organization_id, email, role, invited_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            ).run(invitation.id, sha256Hex(raw), org.id, invitation.email, invitation.role, principal.user.id, now, now + INVITATION_DAYS * 86_400_000);
            appendAudit(ctx, {
              kind: 'member.invite',
              organizationId: org.id,
              actor: actorOf(principal),
              metadata: { invitationId: invitation.id, email: invitation.email, role: invitation.role },
            });
          })
          .immediate();
        const invitationUrl = `${platformOrigin(request, ctx.config.publicUrl)}${r.pageRegister}?invitation=${encodeURIComponent(raw)}`;
        return reply.status(201).send({ invitation, invitationToken: raw, invitationUrl });
      },
    );

    app.patch(
      r.orgMember,
      {
        schema: {
          tags,
          security,
          summary: "Change a member's role (owners and admins; admins cannot touch owners)",
          params: memberParamsSchema,
          body: updateMemberBodySchema,
          response: { 200: memberResponseSchema },
        },
      },
      async (request) => {
        const principal = authenticate(ctx, request);
        const { org, actorRole, targetRole } = memberChange(principal, request.params);
        const role = request.body.role;
        if (!canManageRole(actorRole, targetRole) || !canManageRole(actorRole, role))
          throw new SvcError('SVC_FORBIDDEN', `An ${actorRole} cannot change an ${targetRole} to ${role}.`);
        ctx.db
          .transaction(() => {
            if (targetRole === 'owner' && role !== 'owner' && countOwners(ctx, org.id) <= 1) throw new SvcError('SVC_ORG_LAST_OWNER');
            cachedStatement(ctx.db, 'UPDATE memberships SET role = ? WHERE organization_id = ? AND user_id = ?').run(role, org.id, request.params.userId);
            appendAudit(ctx, {
              kind: 'member.role',
              organizationId: org.id,
              actor: actorOf(principal),
              metadata: { userId: request.params.userId, from: targetRole, to: role },
            });
          })
          .immediate();
        const member = listMembers(ctx, org.id).find((m) => m.user_id === request.params.userId)!;
        return { member: toMember(member) };
      },
    );

    app.delete(
      r.orgMember,
      {
        schema: {
          tags,
          security,
          summary: 'Remove a member (owners and admins; admins cannot remove owners)',
          params: memberParamsSchema,
          response: { 200: okResponseSchema },
        },
      },
      async (request) => {
        const principal = authenticate(ctx, request);
        const { org, actorRole, targetRole } = memberChange(principal, request.params);
        if (!canManageRole(actorRole, targetRole)) throw new SvcError('SVC_FORBIDDEN', `An ${actorRole} cannot remove an ${targetRole}.`);
        ctx.db
          .transaction(() => {
            if (targetRole === 'owner' && countOwners(ctx, org.id) <= 1) throw new SvcError('SVC_ORG_LAST_OWNER');
            cachedStatement(ctx.db, 'DELETE FROM memberships WHERE organization_id = ? AND user_id = ?').run(org.id, request.params.userId);
            appendAudit(ctx, {
              kind: 'member.remove',
              organizationId: org.id,
              actor: actorOf(principal),
              metadata: { userId: request.params.userId, role: targetRole },
            });
          })
          .immediate();
        return { ok: true as const };
      },
    );
  };
}

import type { FeatureContext } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import { appendAudit } from '../audit/append-audit.js';
import { actorOf, authorize, findOrganization, listMemberships, scopedProjectId, type Principal } from '../identity/index.js';
import { checkProjectSlug, slugFromName } from './contract.js';
import { findProject, insertProject, removeProjectRoot, type ProjectRow } from './project-store.js';

/** Validate a slug, mapping each failed rule to its stable code. Pure apart from throwing. */
function assertProjectSlug(slug: string): void {
  const problem = checkProjectSlug(slug);
  if (problem === 'invalid')
    throw new SvcError('SVC_PROJECT_SLUG_INVALID', `"${slug.slice(0, 60)}" is not a valid slug: use 3–40 lowercase ASCII letters, digits and single dashes.`);
  if (problem === 'reserved') throw new SvcError('SVC_PROJECT_SLUG_RESERVED', `"${slug}" is reserved by the platform.`);
}

/**
 * Create a project in an organization the caller may create projects in (default: their personal
 * organization): slug checked, row + `project.create` audit event in one transaction, root dir 0700.
 */
export function createProject(
  ctx: FeatureContext,
  principal: Principal,
  input: { name: string; slug?: string | undefined; organizationId?: string | undefined },
): ProjectRow {
  if (scopedProjectId(principal) !== null) throw new SvcError('SVC_TOKEN_SCOPE', 'Creating a project needs an account-wide credential.');
  const slug = input.slug ?? slugFromName(input.name);
  assertProjectSlug(slug);
  let organizationId: string;
  if (input.organizationId !== undefined) {
    const org = findOrganization(ctx, input.organizationId);
    if (!org || !listMemberships(ctx, principal.user.id).some((m) => m.id === org.id)) throw new SvcError('SVC_ORG_NOT_FOUND');
    organizationId = org.id;
  } else {
    organizationId = principal.user.personal_org_id!;
  }
  authorize(ctx, principal, { permission: 'projects', organizationId });
  let created: ProjectRow | undefined;
  try {
    return ctx.db
      .transaction(() => {
        if (findProject(ctx, slug)) throw new SvcError('SVC_PROJECT_SLUG_TAKEN', `Slug "${slug}" is taken.`);
        created = insertProject(ctx, { slug, name: input.name, organizationId, createdBy: principal.user.id });
        appendAudit(ctx, {
          kind: 'project.create',
          organizationId,
          projectId: created.id,
          actor: actorOf(principal),
          metadata: { projectId: created.id, slug, name: input.name, organizationId },
        });
        return created;
      })
      .immediate();
  } catch (error) {
    if (created) removeProjectRoot(ctx.config.dataDir, created.id);
    throw error;
  }
}

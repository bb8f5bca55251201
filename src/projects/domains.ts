// Custom domains of projects: validated, never one of the platform's own names (reserved-hosts.ts),
// one project per domain (database primary key plus the ingress route table), audited, loaded into
// the ingress at start. The edge certificate lookup asks `serves(host)`.
import type { FeatureContext } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import { appendAudit, type AuditInput } from '../audit/append-audit.js';
import { normalizeHost } from '../ingress/host-matcher.js';
import { isIpLiteral } from '../ingress/ip-literal.js';
import { isPlatformHost, platformHostNames } from '../ingress/platform-hosts.js';
import { findProject } from './project-store.js';
import { allDomains, deleteDomain, findDomain, insertDomain, listDomains, toDomain } from './domains-store.js';
import type { Domain } from './domains-contract.js';
import { reservedHost, reservedHostMessage, type ReservedHost, type ReservedHostRules } from './reserved-hosts.js';

/** The part of the ingress route table this feature drives. */
export interface DomainRouter {
  addDomain(projectId: string, domain: string): string;
  removeDomain(domain: string): boolean;
}

/** Most custom domains one project may have. */
export const MAX_DOMAINS_PER_PROJECT = 50;

/** Who changes a domain. */
export interface DomainSubject {
  project: { id: string; organizationId: string };
  actor: AuditInput['actor'];
}

export interface DomainsFeature {
  list(projectId: string): Domain[];
  add(subject: DomainSubject, domain: string): Domain;
  remove(subject: DomainSubject, domain: string): string;
  /**
   * Whether svc serves this host: a custom domain that is not a reserved name, or `<slug>.<appDomain>`
   * of an existing project; never one of the platform's own hosts.
   */
  serves(host: string): boolean;
  /** Route every stored domain that is not a reserved name (start-up). */
  load(): void;
}

/**
 * Normalize a user-supplied domain, or throw: SVC_DOMAIN_RESERVED for the platform's own names (IP
 * literals, loopback names, the public, listen and app hosts with their parents and children),
 * SVC_DOMAIN_INVALID unless it is a DNS name with two or more labels and no wildcard, port or path.
 */
function normalizeCustomDomain(input: string, rules: ReservedHostRules): string {
  const trimmed = input.trim();
  const refuse = (name: string, reserved: ReservedHost): never => {
    throw new SvcError('SVC_DOMAIN_RESERVED', reservedHostMessage(name, reserved));
  };
  const invalid = (why: string): never => {
    throw new SvcError('SVC_DOMAIN_INVALID', `"${input.slice(0, 100)}" ${why}.`);
  };
  // Bracketed or with a port an address is no host name, but "reserved" is the answer that helps.
  if (isIpLiteral(trimmed)) return refuse(trimmed, { reason: 'ip-address', overlaps: trimmed });
  const host = normalizeHost(trimmed);
  if (host === null || trimmed.includes(':') || trimmed.includes('/')) return invalid('is not a valid host name');
  // Compared after IDNA mapping, so a Unicode spelling of a platform name is caught too.
  const reserved = reservedHost(host, rules);
  if (reserved !== null) return refuse(host, reserved);
  if (!host.includes('.')) return invalid('needs at least two labels (example.com)');
  return host;
}

/** Build the domains feature over the ingress route table. */
export function createDomains(ctx: FeatureContext, router: DomainRouter): DomainsFeature {
  const appDomain = ctx.config.appDomain;
  const platformNames = platformHostNames(ctx.config);
  const rules: ReservedHostRules = { platformNames, appDomain };
  return {
    list: (projectId) => listDomains(ctx, projectId).map(toDomain),
    add(subject, input) {
      const domain = normalizeCustomDomain(input, rules);
      return ctx.db
        .transaction(() => {
          const holder = findDomain(ctx, domain);
          if (holder && holder.project_id !== subject.project.id) throw new SvcError('SVC_DOMAIN_TAKEN', `${domain} is claimed by another project.`);
          if (holder) return toDomain(holder);
          if (listDomains(ctx, subject.project.id).length >= MAX_DOMAINS_PER_PROJECT)
            throw new SvcError('SVC_DOMAIN_LIMIT', `A project has at most ${MAX_DOMAINS_PER_PROJECT} custom domains.`);
          const row = { domain, project_id: subject.project.id, created_by: subject.actor.id, created_at: ctx.clock.now() };
          insertDomain(ctx, row);
          appendAudit(ctx, {
            kind: 'domain.add',
            organizationId: subject.project.organizationId,
            projectId: subject.project.id,
            actor: subject.actor,
            metadata: { domain },
          });
          // Last, so a routing conflict rolls the row back; a thrown ingress error keeps its code.
          try {
            router.addDomain(subject.project.id, domain);
          } catch (error) {
            if (error instanceof SvcError && error.code === 'SVC_INGRESS_DOMAIN_TAKEN')
              throw new SvcError('SVC_DOMAIN_TAKEN', `${domain} is already routed to another project.`);
            if (error instanceof SvcError && error.code === 'SVC_INGRESS_DOMAIN_RESERVED') throw new SvcError('SVC_DOMAIN_RESERVED', error.message);
            throw error;
          }
          return toDomain(row);
        })
        .immediate();
    },
    remove(subject, input) {
      const domain = normalizeHost(input.trim()) ?? input;
      ctx.db
        .transaction(() => {
          if (!deleteDomain(ctx, subject.project.id, domain))
            throw new SvcError('SVC_DOMAIN_NOT_FOUND', `${domain.slice(0, 100)} is not a custom domain of this project.`);
          appendAudit(ctx, {
            kind: 'domain.remove',
            organizationId: subject.project.organizationId,
            projectId: subject.project.id,
            actor: subject.actor,
            metadata: { domain },
          });
        })
        .immediate();
      router.removeDomain(domain);
      return domain;
    },
    serves(input) {
      const host = normalizeHost(input);
      // A certificate for a platform host would let whoever holds the row impersonate the platform.
      if (host === null || isPlatformHost(host, platformNames)) return false;
      if (findDomain(ctx, host) && reservedHost(host, rules) === null) return true;
      const suffix = `.${appDomain}`;
      if (!host.endsWith(suffix)) return false;
      const slug = host.slice(0, -suffix.length);
      if (slug.length === 0 || slug.includes('.')) return false;
      return findProject(ctx, slug)?.slug === slug;
    },
    load() {
      for (const row of allDomains(ctx)) {
        // Rows stored before these rules existed, or before the platform's names changed, stay
        // listed (so they can be removed) but are never routed.
        const reserved = reservedHost(row.domain, rules);
        if (reserved !== null) {
          ctx.logger.warn(
            { domain: row.domain, projectId: row.project_id, reason: reserved.reason },
            'custom domain not routed: the name is reserved for the platform',
          );
          continue;
        }
        try {
          router.addDomain(row.project_id, row.domain);
        } catch (error) {
          ctx.logger.error({ err: error, domain: row.domain, projectId: row.project_id }, 'could not route a custom domain');
        }
      }
    },
  };
}

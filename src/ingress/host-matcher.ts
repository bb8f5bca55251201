import { domainToASCII } from 'node:url';
import { SvcError } from '../core/errors.js';

// Lowercase ASCII labels separated by single dots (what browsers send after IDNA).
const ASCII_HOST = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const DIGITS = /^\d{1,5}$/;
const NOT_NAME = /[^A-Za-z0-9.\u0080-\uffff-]/;

/**
 * The host name of a `Host` header value: lowercase ASCII (IDNA), no port, no trailing dot.
 * Null for values that can never name a project (IPv6 literals, empty or malformed names). Pure.
 */
export function normalizeHost(value: string): string | null {
  if (value.length === 0 || value.length > 260 || value.charCodeAt(0) === 91 /* '[' IPv6 literal */) return null;
  let host = value;
  const colon = host.lastIndexOf(':');
  if (colon !== -1) {
    if (!DIGITS.test(host.slice(colon + 1))) return null;
    host = host.slice(0, colon);
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.length <= 253 && ASCII_HOST.test(host)) return host;
  // Upper case or Unicode: let WHATWG URL's IDNA processing decide (returns '' when invalid),
  // but only for name characters — it would cut 'a/b.example' down to 'a'.
  if (NOT_NAME.test(host)) return null;
  const ascii = domainToASCII(host);
  return ascii.length > 0 && ascii.length <= 253 && ASCII_HOST.test(ascii) ? ascii : null;
}

/**
 * Which project a host belongs to: default domains `<slug>.<baseDomain>` plus custom domains
 * (added by the domains feature through addDomain/removeDomain). Port- and case-insensitive.
 */
export class HostMatcher {
  readonly baseDomain: string;
  readonly #byHost = new Map<string, string>();
  readonly #defaultOf = new Map<string, string>();
  readonly #suffix: string;

  constructor(baseDomain = 'localhost') {
    const normalized = normalizeHost(baseDomain);
    if (normalized === null) throw new SvcError('SVC_INGRESS_DOMAIN_INVALID', `Invalid base domain "${baseDomain}".`);
    this.baseDomain = normalized;
    this.#suffix = `.${normalized}`;
  }

  /** `<slug>.<baseDomain>`. */
  defaultHost(slug: string): string {
    return `${slug}${this.#suffix}`;
  }

  /** Point the project's default host at `slug` (replacing an earlier slug). */
  setDefault(projectId: string, slug: string): void {
    const host = this.defaultHost(slug);
    const previous = this.#defaultOf.get(projectId);
    if (previous === host) return;
    const owner = this.#byHost.get(host);
    if (owner !== undefined && owner !== projectId) throw new SvcError('SVC_INGRESS_DOMAIN_TAKEN', `${host} already routes to another project.`);
    if (previous !== undefined) this.#byHost.delete(previous);
    this.#byHost.set(host, projectId);
    this.#defaultOf.set(projectId, host);
  }

  /** Route a custom domain to a project; returns the normalized host. */
  addDomain(projectId: string, domain: string): string {
    const host = normalizeHost(domain);
    if (host === null || !host.includes('.') || /^[\d.]+$/.test(host))
      throw new SvcError('SVC_INGRESS_DOMAIN_INVALID', `"${domain.slice(0, 100)}" is not a valid domain name.`);
    const owner = this.#byHost.get(host);
    if (owner !== undefined && owner !== projectId) throw new SvcError('SVC_INGRESS_DOMAIN_TAKEN', `${host} already routes to another project.`);
    this.#byHost.set(host, projectId);
    return host;
  }

  /** Stop routing a custom domain; false if it was not routed. A project's default host is kept. */
  removeDomain(domain: string): boolean {
    const host = normalizeHost(domain);
    if (host === null) return false;
    const owner = this.#byHost.get(host);
    if (owner === undefined || this.#defaultOf.get(owner) === host) return false;
    return this.#byHost.delete(host);
  }

  /**
   * Make a project's custom domains exactly `domains` (a follower copying the control plane's route),
   * skipping hosts `refused` says are not a project's. A domain another project still holds in this
   * copy is left out until that project's own update frees it.
   */
  setDomains(projectId: string, domains: readonly string[], refused: (host: string) => boolean): void {
    const primary = this.#defaultOf.get(projectId);
    const wanted = new Set(domains);
    for (const host of this.hostsOf(projectId)) if (host !== primary && !wanted.has(host)) this.removeDomain(host);
    for (const domain of wanted) {
      const host = normalizeHost(domain);
      if (host === null || refused(host)) continue;
      try {
        this.addDomain(projectId, domain);
      } catch {
        // Taken by another project in this copy until that project's own update arrives.
      }
    }
  }

  /** Forget every host of a project. */
  removeProject(projectId: string): void {
    for (const [host, owner] of this.#byHost) if (owner === projectId) this.#byHost.delete(host);
    this.#defaultOf.delete(projectId);
  }

  /** Project id of a normalized host, if routed. */
  resolve(host: string): string | undefined {
    return this.#byHost.get(host);
  }

  /** The label of `<label>.<baseDomain>` when the host has that shape (a possible slug), else null. */
  slugCandidate(host: string): string | null {
    if (!host.endsWith(this.#suffix)) return null;
    const label = host.slice(0, host.length - this.#suffix.length);
    return label.length > 0 && !label.includes('.') ? label : null;
  }

  /** Every host routed to a project, default host first. */
  hostsOf(projectId: string): string[] {
    const primary = this.#defaultOf.get(projectId);
    const others = [...this.#byHost].filter(([host, owner]) => owner === projectId && host !== primary).map(([host]) => host);
    return primary === undefined ? others : [primary, ...others];
  }
}

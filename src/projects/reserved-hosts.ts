// Which names a project may never claim as a custom domain, and why. A name equal to, above or
// below one of the platform's own hosts would let an app receive the platform's traffic (logins,
// session cookies), set cookies the platform reads (a parent domain's cookies reach its children),
// or get certificates for the platform's names.
import { isIpLiteral } from '../ingress/ip-literal.js';

/** Why a name is reserved. */
export type ReservedReason = 'ip-address' | 'loopback' | 'platform-host' | 'app-domain';

/** A reserved name: the reason and the platform name it overlaps. */
export interface ReservedHost {
  reason: ReservedReason;
  overlaps: string;
}

/** What the decision needs to know about the platform (normalized names). */
export interface ReservedHostRules {
  /** Hosts the platform answers for: public URL host, listen host, loopback names. */
  platformNames: Iterable<string>;
  /** SVC_APP_DOMAIN: projects are served at `<slug>.<appDomain>`. */
  appDomain: string;
}

/** Equal, parent or child: the names share cookies or traffic. */
function overlaps(host: string, name: string): boolean {
  return host === name || host.endsWith(`.${name}`) || name.endsWith(`.${host}`);
}

/**
 * Why `host` may not be a custom domain, or null when it may. `host` is a user-supplied name:
 * IP literals are recognised in any form (bracketed IPv6 included), other names are compared
 * lowercase without a trailing dot. Pure.
 */
export function reservedHost(host: string, rules: ReservedHostRules): ReservedHost | null {
  if (isIpLiteral(host)) return { reason: 'ip-address', overlaps: host };
  const name = host.trim().toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return { reason: 'loopback', overlaps: 'localhost' };
  for (const platform of rules.platformNames) if (overlaps(name, platform)) return { reason: 'platform-host', overlaps: platform };
  if (overlaps(name, rules.appDomain)) return { reason: 'app-domain', overlaps: rules.appDomain };
  return null;
}

/** The user-facing sentence for a reserved name. Pure. */
export function reservedHostMessage(host: string, reserved: ReservedHost): string {
  const shown = host.slice(0, 100);
  switch (reserved.reason) {
    case 'ip-address':
      return `${shown} is reserved: it is an IP address, and custom domains are DNS names.`;
    case 'loopback':
      return `${shown} is reserved: localhost names always reach the local machine.`;
    case 'platform-host':
      return `${shown} is reserved: it is the platform's own host ${reserved.overlaps}, a parent domain of it or a name under it.`;
    case 'app-domain':
      return `${shown} is reserved: it is the app domain ${reserved.overlaps}, a parent domain of it or a name under it; projects are already served at <slug>.${reserved.overlaps}.`;
  }
}

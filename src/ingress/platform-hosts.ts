import { normalizeHost } from './host-matcher.js';
import { isIpLiteral } from './ip-literal.js';

/** Names of the local machine that resolve to loopback: the control plane answers on them, never an app. */
export const LOOPBACK_NAMES: readonly string[] = ['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback'];

/** The configuration that says where the platform itself is reached. */
export interface PlatformAddress {
  /** SVC_PUBLIC_URL origin, or null when derived from each request. */
  publicUrl: string | null;
  /** SVC_LISTEN host. */
  listen: { host: string };
}

/**
 * Host names the platform answers for itself (normalized): loopback names, the public URL's host
 * and the listen host when they are names. IP literals are recognised by shape, not listed. Pure.
 */
export function platformHostNames(address: PlatformAddress): ReadonlySet<string> {
  const names = new Set(LOOPBACK_NAMES);
  const add = (value: string | null): void => {
    if (value === null || isIpLiteral(value)) return;
    const host = normalizeHost(value);
    if (host !== null) names.add(host);
  };
  add(address.publicUrl === null ? null : hostOfUrl(address.publicUrl));
  add(address.listen.host);
  return names;
}

function hostOfUrl(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null; // the config schema rejects such URLs before they get here
  }
}

/** Whether a normalized host is the platform's own: one of `names` or any IP literal. Pure. */
export function isPlatformHost(host: string, names: ReadonlySet<string>): boolean {
  return names.has(host) || isIpLiteral(host);
}

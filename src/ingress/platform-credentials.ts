// What a request must not carry from the client to an app: the platform's own credentials and the
// headers the platform uses internally. Pure; called for each request header on the proxy hot path.
import { PLATFORM_CSRF_HEADER, PLATFORM_SESSION_COOKIES } from '../core/platform-credentials-names.js';
import { TOKEN_PREFIX } from '../identity/contract.js';
import { CSRF_HEADER as APP_CSRF_HEADER } from '../runtime/auth/cookies.js';

// A browser sends the console's host-only cookie only to the platform's host, which the ingress
// never routes to an app. It is stripped anyway: a proxy in front that rewrites Host, or a route
// to the platform's name added by mistake, must not hand an app a session that controls the
// account. The app runtime's own session cookie and CSRF header (docs/runtime.md) have different
// names and pass, like any other cookie or header of the app.

/** Platform cookies removed from `Cookie` before a request reaches an app (both session cookie names). */
export const PLATFORM_COOKIES: readonly string[] = PLATFORM_SESSION_COOKIES;

/**
 * Whether a lowercase request header name is the platform's: the console's CSRF header and every
 * other `x-svc-*` header, except the app runtime's CSRF header, which belongs to the app. Pure.
 */
export function isPlatformHeader(name: string): boolean {
  return name === PLATFORM_CSRF_HEADER || (name.startsWith('x-svc-') && name !== APP_CSRF_HEADER);
}

/**
 * Whether an `Authorization` (or similar) value carries an svc access token: any scheme whose
 * credentials start with the token prefix (`Bearer svc_…`, a bare `svc_…`), or Basic credentials
 * whose user or password does (`x:svc_…` from a URL or a git credential helper). Pure.
 */
export function carriesSvcToken(value: string): boolean {
  const text = value.trim();
  const space = text.search(/\s/);
  const credentials = space === -1 ? text : text.slice(space).trim();
  if (credentials.startsWith(TOKEN_PREFIX)) return true;
  if (space === -1 || text.slice(0, space).toLowerCase() !== 'basic') return false;
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return decoded.startsWith(TOKEN_PREFIX) || (colon !== -1 && decoded.startsWith(TOKEN_PREFIX, colon + 1));
}

/**
 * A `Cookie` header without the named cookies: the same string when none is present (no
 * allocation), the remaining pairs joined with `; `, or null when nothing is left. Pure.
 */
export function withoutCookies(header: string, names: readonly string[]): string | null {
  if (!names.some((name) => header.includes(name))) return header;
  const kept: string[] = [];
  for (const part of header.split(';')) {
    const pair = part.trim();
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = (eq === -1 ? pair : pair.slice(0, eq)).trim();
    if (!names.includes(name)) kept.push(pair);
  }
  return kept.length === 0 ? null : kept.join('; ');
}

// What a request must not carry from the client to an app: the platform's own credentials and the
// headers the platform uses internally. Pure; called for each request header on the proxy hot path.
import { CSRF_HEADER, SESSION_COOKIE, TOKEN_PREFIX } from '../identity/contract.js';
import { CSRF_HEADER as APP_CSRF_HEADER, SESSION_COOKIE as APP_SESSION_COOKIE } from '../runtime/auth/cookies.js';

// The app runtime (docs/runtime.md) gives apps their own session cookie and CSRF header, and today
// they carry the same names as the console's. A browser only sends the console's cookie to the
// platform's own host, which the ingress never routes to an app, so whatever arrives on an app host
// under a shared name is the app's: stripping it would sign every runtime app's users out. Names the
// runtime does not share are the platform's alone and are stripped.
const APP_OWNED_HEADERS: ReadonlySet<string> = new Set([APP_CSRF_HEADER]);

/** Platform cookies removed from `Cookie` before a request reaches an app. */
export const PLATFORM_COOKIES: readonly string[] = [SESSION_COOKIE].filter((name) => name !== APP_SESSION_COOKIE);

/** Whether a lowercase request header name is the platform's (`x-svc-*`, the console CSRF header). Pure. */
export function isPlatformHeader(name: string): boolean {
  return (name.startsWith('x-svc-') || name === CSRF_HEADER) && !APP_OWNED_HEADERS.has(name);
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

// Minimal cookie parsing and the session cookie's attributes.

/** Name of the session cookie. */
export const SESSION_COOKIE = 'svc_session';
/** Header carrying the CSRF token on mutations and auth changes. */
export const CSRF_HEADER = 'x-svc-csrf';

/** Value of one cookie from a Cookie header. */
export function readCookie(header: string | null, name: string): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** Set-Cookie value for the session: HttpOnly, SameSite=Lax, Path=/, Secure on https. */
export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  const parts = [`${SESSION_COOKIE}=${encodeURIComponent(token)}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

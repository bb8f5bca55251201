// Names of the browser console's session cookie and CSRF header. They live in core because the
// server (identity), the ingress that strips them before proxying, the logger, the OpenAPI
// description and the web console all need the same strings.
//
// They must differ from the names svc's app runtime gives apps (`svc_session`, `x-svc-csrf` in
// src/runtime/auth/cookies.ts): the ingress removes these from every proxied request, and a shared
// name would either leak the platform session to apps or sign every runtime app's users out.

/** Session cookie of a platform served over plain http. */
export const PLATFORM_SESSION_COOKIE = 'svc_console';

/**
 * Session cookie of a platform served over https. Browsers accept a `__Host-` cookie only with
 * Secure, Path=/ and no Domain, so no other host (an app on a sibling subdomain, say) can set or
 * overwrite it.
 */
export const PLATFORM_SECURE_SESSION_COOKIE = `__Host-${PLATFORM_SESSION_COOKIE}`;

/** Every name the platform session cookie can have (both are stripped by the ingress). */
export const PLATFORM_SESSION_COOKIES: readonly string[] = [PLATFORM_SESSION_COOKIE, PLATFORM_SECURE_SESSION_COOKIE];

/** Header carrying the browser session's CSRF token on state-changing requests. */
export const PLATFORM_CSRF_HEADER = 'x-svc-console-csrf';

/** The session cookie's name for a platform served over https (`secure`) or plain http. Pure. */
export function platformSessionCookie(secure: boolean): string {
  return secure ? PLATFORM_SECURE_SESSION_COOKIE : PLATFORM_SESSION_COOKIE;
}

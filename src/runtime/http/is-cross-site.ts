// Cross-site requests are rejected by default: browsers say where a request comes from through
// Sec-Fetch-Site and Origin. Requests without either (curl, the Node client) are not browser requests.

/**
 * True when a browser sent the request from another site. Origin is compared by host (scheme ignored, since
 * TLS often ends at a proxy); `allowedOrigins` lists extra origins (e.g. "https://app.example.com").
 */
export function isCrossSite(request: Request, allowedOrigins: readonly string[] = []): boolean {
  const origin = request.headers.get('origin');
  const fetchSite = request.headers.get('sec-fetch-site');
  if (origin !== null) {
    if (allowedOrigins.includes(origin)) return false;
    if (origin === 'null') return true;
    try {
      if (new URL(origin).host !== new URL(request.url).host) return true;
    } catch {
      return true;
    }
    return false;
  }
  // No Origin (e.g. a same-origin GET): trust Fetch Metadata when present.
  return fetchSite === 'cross-site' || fetchSite === 'same-site';
}

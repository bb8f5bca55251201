// The console's Content Security Policy: only our own scripts, styles and API; no inline code,
// no framing, no <base> tricks, forms only to this origin.
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Paths the SPA fallback never answers with index.html (API, auth, reserved, hashed assets). */
export const NON_CONSOLE_PREFIXES = ['/api/', '/__svc/', '/_svc/', '/assets/'] as const;

/** Whether a GET of `path` (no query) should fall back to the console's index.html. Pure. */
export function isConsoleRoute(path: string): boolean {
  if (path === '/api' || path === '/__svc' || path === '/_svc') return false;
  if (NON_CONSOLE_PREFIXES.some((prefix) => path.startsWith(prefix))) return false;
  // A missing file (favicon.ico, robots.txt, …) is a 404, not the app.
  const last = path.slice(path.lastIndexOf('/') + 1);
  return !last.includes('.');
}

/** The host name of a Host header: lower case, no port, no trailing dot. Pure. */
function hostName(hostHeader: string): string {
  const host = hostHeader.trim().toLowerCase();
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
  return name.replace(/\.$/, '');
}

/**
 * Whether a request's Host looks like an app host (`<anything>.<appDomain>`) rather than the
 * platform's own: such hosts that no project serves (e.g. a deleted site) get a 404, not the
 * console. The configured public URL's host always counts as the platform. Pure.
 */
export function isAppHost(hostHeader: string | undefined, appDomain: string, publicUrl: string | null): boolean {
  if (!hostHeader) return false;
  const host = hostName(hostHeader);
  if (publicUrl) {
    try {
      if (new URL(publicUrl).hostname.toLowerCase().replace(/\.$/, '') === host) return false;
    } catch {
      // an invalid public URL is rejected by the config schema; treat as unset
    }
  }
  return host.endsWith(`.${appDomain.toLowerCase()}`);
}

/**
 * Whether a Host is the platform's own, so it may get the console: loopback names and IP
 * literals (local use) and the configured public URL's host. Any other name — a custom domain
 * no project serves any more, an app host, a stray DNS name — gets the JSON 404 instead. Pure.
 */
export function isPlatformHost(hostHeader: string | undefined, publicUrl: string | null): boolean {
  if (!hostHeader) return true;
  const host = hostName(hostHeader);
  if (host === 'localhost' || host.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return true;
  if (!publicUrl) return false;
  try {
    return new URL(publicUrl).hostname.toLowerCase().replace(/\.$/, '') === host;
  } catch {
    return false;
  }
}

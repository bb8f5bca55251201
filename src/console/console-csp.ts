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

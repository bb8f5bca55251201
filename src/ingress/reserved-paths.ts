/**
 * Paths the control plane answers on every host, app hosts included: `/livez`, `/healthz`,
 * `/readyz` and everything under `/_svc/`. Pure; a cheap first-character test keeps the hot path fast.
 */
export function isReservedPath(url: string): boolean {
  const c = url.charCodeAt(1);
  if (c !== 108 /* l */ && c !== 104 /* h */ && c !== 114 /* r */ && c !== 95 /* _ */) return false;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  return path === '/livez' || path === '/healthz' || path === '/readyz' || path === '/_svc' || path.startsWith('/_svc/');
}

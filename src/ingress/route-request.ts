// Which requests the proxy takes: a project host (after the platform's own hosts) and a path that is
// not reserved for the control plane. Shared by the in-process ingress and the ingress process.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import type { IngressProxy } from './proxy-request.js';
import { isReservedPath } from './reserved-paths.js';
import type { RouteEntry, RouteTable } from './route-table.js';

/** Host header value from raw headers (avoids building req.headers on the hot path). */
function hostOf(raw: string[]): string | undefined {
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && (name === 'host' || name === 'Host' || name.toLowerCase() === 'host')) return raw[i + 1];
  }
  return undefined;
}

/** The app route a request belongs to, or null when it is the control plane's. Hot path. */
function appEntry(routes: RouteTable, req: IncomingMessage): RouteEntry | null {
  const host = hostOf(req.rawHeaders);
  if (host === undefined) return null;
  const entry = routes.match(host);
  if (entry === null) return null;
  const url = req.url;
  // Reserved paths are the control plane's on every host; absolute-form URLs go to Fastify's 400/404.
  if (url === undefined || url.charCodeAt(0) !== 47 /* '/' */ || isReservedPath(url)) return null;
  return entry;
}

/** Proxy the request when it is an app's (true = taken); otherwise leave it to the control plane. Hot path. */
export function routeRequest(routes: RouteTable, proxy: IngressProxy, req: IncomingMessage, res: ServerResponse): boolean {
  const entry = appEntry(routes, req);
  if (entry === null) return false;
  proxy.forward(req, res, entry, performance.now());
  return true;
}

/** The same for an upgrade request (WebSocket): an app's goes to its release (true = taken). */
export function routeUpgrade(routes: RouteTable, proxy: IngressProxy, req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
  const entry = appEntry(routes, req);
  if (entry === null) return false;
  proxy.upgrade(req, socket, head, entry, performance.now());
  return true;
}

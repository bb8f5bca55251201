// Upgrade requests (WebSocket) on a server the control plane listens with: an app host's is joined
// to its release by the in-process ingress; the control plane serves no upgrades itself, so any
// other gets a JSON 404 and the connection closes (rather than hanging with nobody to answer it).
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Ingress } from './create-ingress.js';

/** The raw 404 for an upgrade nobody serves. Pure. */
export function upgradeNotFound(url: string | undefined): string {
  const body = JSON.stringify({ error: { code: 'SVC_NOT_FOUND', message: `No upgrade route ${(url ?? '/').split('?')[0]}` } });
  return `HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\n\r\n${body}`;
}

/** Listen for upgrades on `server`: apps' through `ingress`, the rest answered 404. */
export function serveUpgrades(server: Server, ingress: Pick<Ingress, 'upgrade'>): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (ingress.upgrade(req, socket, head)) return;
    socket.on('error', () => socket.destroy());
    if (socket.writable) socket.end(upgradeNotFound(req.url));
    else socket.destroy();
  });
}

// The control plane's side of the hop from the ingress process: its HTTP server listens on
// `<data>/run/control.sock` (mode 0600 inside the 0700 run directory) instead of the public port,
// and takes each request's client address from the header the ingress sets.
import { chmodSync, renameSync, rmSync, statSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { SvcError } from '../../core/errors.js';
import { CLIENT_ADDRESS_HEADER } from './edge-headers.js';
import { socketPathFits } from './edge-paths.js';

function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ path });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Make the client address the ingress sends the request's `socket.remoteAddress`, so Fastify's
 * `request.ip` (rate limits, device approvals) and the in-process ingress's X-Forwarded-For see the
 * real client. Safe because this server listens only on the 0600 socket, and the ingress sends one
 * request per connection and overwrites any client-sent copy of the header.
 */
export function trustClientAddressHeader(server: Server): void {
  const adopt = (req: IncomingMessage) => {
    const value = req.headers[CLIENT_ADDRESS_HEADER];
    if (typeof value !== 'string' || value === '') return;
    Object.defineProperty(req.socket, 'remoteAddress', { value, configurable: true });
    Object.defineProperty(req.socket, 'remoteFamily', { value: value.includes(':') ? 'IPv6' : 'IPv4', configurable: true });
  };
  server.prependListener('request', adopt);
  server.prependListener('upgrade', adopt);
}

export interface ControlListener {
  /** Take the socket off the file system: new connections fail at once (the ingress holds them), running ones finish. */
  withdraw(): void;
}

/**
 * Listen on `path`: refuse when another control plane answers there, listen on a private name and
 * rename it into place (the socket appears with its final mode; closing unlinks only the private
 * name, never a successor's socket).
 */
export async function listenOnControlSocket(app: FastifyInstance, path: string): Promise<ControlListener> {
  const own = `${path}.${process.pid}`;
  if (!socketPathFits(own))
    throw new SvcError('SVC_INGRESS_START_FAILED', `The socket path ${path} is longer than 107 bytes; use a shorter data directory (SVC_DATA_DIR).`);
  if (await answers(path)) throw new SvcError('SVC_PLATFORM_ALREADY_RUNNING', `Another control plane answers on ${path}.`);
  trustClientAddressHeader(app.server);
  rmSync(own, { force: true });
  await app.listen({ path: own });
  chmodSync(own, 0o600);
  renameSync(own, path);
  const inode = statSync(path).ino;
  return {
    withdraw() {
      try {
        if (statSync(path).ino === inode) rmSync(path, { force: true });
      } catch {
        // already gone
      }
    },
  };
}

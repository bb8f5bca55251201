// Upgrade requests (WebSocket) through the ingress process: once the control plane accepted a
// connection, the request head is written raw and the two sockets are joined byte for byte
// (pipe gives backpressure both ways); the control plane answers 101 or an error itself.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { connectHeld } from './connect-held.js';
import { CONTROL_PLANE_UNAVAILABLE, edgeAnswer, rawEdgeAnswer } from './edge-errors.js';
import { controlPlaneUpgradeHeaders, plainAddress, requestHead } from './edge-headers.js';
import type { ForwardOptions } from './forward-request.js';

/** An `upgrade` listener that joins the client to the control plane, holding while it is unreachable. */
export function forwardUpgrade(options: ForwardOptions, tunnels: Set<Duplex>) {
  return (req: IncomingMessage, client: Duplex, head: Buffer): void => {
    tunnels.add(client);
    client.once('close', () => tunnels.delete(client));
    client.on('error', () => client.destroy());
    void connectHeld(options.controlSocket, { holdMs: options.holdMs, gone: () => client.destroyed }).then((held) => {
      if (held.heldMs > 0 || held.socket === null)
        options.onHeld?.(held.heldMs, held.socket !== null ? 'served' : held.reason === 'gone' ? 'gone' : 'unavailable');
      if (held.socket === null) {
        if (held.reason === 'timeout' && client.writable) client.end(rawEdgeAnswer(edgeAnswer(CONTROL_PLANE_UNAVAILABLE, options.holdMs)));
        else client.destroy();
        return;
      }
      const upstream = held.socket;
      const address = plainAddress((req.socket as { remoteAddress?: string }).remoteAddress);
      upstream.write(requestHead(req.method ?? 'GET', req.url ?? '/', controlPlaneUpgradeHeaders(req.rawHeaders, address)));
      if (head.length > 0) upstream.write(head);
      upstream.on('error', () => client.destroy());
      upstream.once('close', () => client.destroy());
      client.once('close', () => upstream.destroy());
      upstream.pipe(client);
      client.pipe(upstream);
    });
  };
}

// The ingress process's hot path: each client request goes to the control plane on a fresh
// connection to its unix socket (one request per connection, so a control plane closing its idle
// connections can never race a request onto a dying one), streaming both ways with backpressure.
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { connectHeld } from './connect-held.js';
import { clientResponseHeaders, controlPlaneRequestHeaders, plainAddress } from './edge-headers.js';
import { CONTROL_PLANE_CONNECTION_LOST, CONTROL_PLANE_UNAVAILABLE, edgeAnswer } from './edge-errors.js';

export interface ForwardOptions {
  /** The control plane's socket. */
  controlSocket: string;
  /** How long a request waits for an unreachable control plane before 503 (SVC_HOLD_REQUESTS_MS). */
  holdMs: number;
  /** Told about every hold that ended (served or not), for logs and tests. */
  onHeld?: (heldMs: number, outcome: 'served' | 'unavailable' | 'gone') => void;
}

/** Running requests, so a stopping ingress can wait for them. */
export class InFlight {
  count = 0;
  #waiters: (() => void)[] = [];
  enter(): void {
    this.count++;
  }
  leave(): void {
    this.count--;
    if (this.count === 0) for (const wake of this.#waiters.splice(0)) wake();
  }
  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.#waiters.push(resolve));
  }
}

function answer(
  res: ServerResponse,
  code: typeof CONTROL_PLANE_UNAVAILABLE | typeof CONTROL_PLANE_CONNECTION_LOST,
  heldMs: number,
  closeConnection: boolean,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const { status, headers, body } = edgeAnswer(code, heldMs);
  if (closeConnection) headers.connection = 'close';
  res.writeHead(status, headers).end(body);
}

/** A `request` listener that forwards to the control plane, holding while it is unreachable. */
export function forwardRequest(options: ForwardOptions, inFlight: InFlight) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    inFlight.enter();
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      inFlight.leave();
    };
    res.once('close', finish);
    const clientGone = () => req.socket.destroyed || res.destroyed;
    // The body stays unread (paused in the kernel) until the control plane accepted a connection.
    const attempt = (retry: boolean): void =>
      void connectHeld(options.controlSocket, { holdMs: options.holdMs, gone: clientGone }).then((held) => {
        if (held.heldMs > 0 || held.socket === null)
          options.onHeld?.(held.heldMs, held.socket !== null ? 'served' : held.reason === 'gone' ? 'gone' : 'unavailable');
        if (held.socket === null) {
          if (held.reason === 'gone') res.destroy();
          // The unread body must not be taken for the next request on this connection.
          else answer(res, CONTROL_PLANE_UNAVAILABLE, options.holdMs, !req.complete);
          return;
        }
        deliver(req, res, held.socket, retry && retryable(req) ? () => attempt(false) : null);
      });
    attempt(true);
  };
}

/**
 * A GET or HEAD without a body may be sent again when the control plane died before answering a
 * byte: it changes nothing, and the ingress still has all of it. Every other request is not retried.
 */
function retryable(req: IncomingMessage): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}

function deliver(req: IncomingMessage, res: ServerResponse, socket: Socket, retry: (() => void) | null): void {
  let answered = false;
  const upstream = httpRequest({
    createConnection: () => socket,
    method: req.method,
    path: req.url,
    headers: controlPlaneRequestHeaders(req.rawHeaders, plainAddress(req.socket.remoteAddress)),
    setHost: false,
  });
  upstream.on('response', (upstreamRes) => {
    answered = true;
    if (res.destroyed) {
      upstreamRes.destroy();
      return;
    }
    const headers = clientResponseHeaders(upstreamRes.rawHeaders);
    // The control plane stopped reading an unfinished body (e.g. 413): the client must stop too.
    if (!req.complete) headers.push('connection', 'close');
    res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, headers);
    res.flushHeaders(); // server-sent events: headers now, not with the first event
    upstreamRes.pipe(res);
    upstreamRes.once('close', () => {
      if (!upstreamRes.complete) res.destroy();
    });
  });
  upstream.once('error', () => {
    req.unpipe(upstream);
    if (!answered && retry !== null && !res.destroyed) retry();
    else answer(res, CONTROL_PLANE_CONNECTION_LOST, 0, true);
  });
  const cancel = (): void => {
    if (!res.writableFinished) upstream.destroy();
  };
  res.once('close', cancel);
  upstream.once('close', () => res.off('close', cancel));
  // A retried GET was read to its end by the first attempt.
  if (req.readableEnded) upstream.end();
  else req.pipe(upstream);
}

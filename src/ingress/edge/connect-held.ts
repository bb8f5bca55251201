// Connect to the control plane's socket, holding while it is down: a refused or missing socket
// means nothing was delivered, so trying again is always safe.
import { connect, type Socket } from 'node:net';

export type HeldConnect = { socket: Socket; heldMs: number } | { socket: null; heldMs: number; reason: 'timeout' | 'gone' };

export interface HoldOptions {
  /** How long to keep trying (0 = one attempt). */
  holdMs: number;
  /** True once the client went away; stops the hold. */
  gone: () => boolean;
  /** Called when the first attempt fails and the request starts waiting. */
  onHold?: () => void;
}

function attempt(path: string): Promise<Socket | NodeJS.ErrnoException> {
  return new Promise((resolve) => {
    const socket = connect({ path });
    const failed = (error: NodeJS.ErrnoException) => resolve(error);
    socket.once('error', failed);
    socket.once('connect', () => {
      socket.off('error', failed);
      resolve(socket);
    });
  });
}

/**
 * Connect to `path`, retrying every 10–100 ms while nothing listens (ECONNREFUSED during a restart,
 * ENOENT before the socket exists, EAGAIN on a full backlog), up to `holdMs`. Every connect error
 * is retried: nothing is sent on a socket that never connected.
 */
export async function connectHeld(path: string, options: HoldOptions): Promise<HeldConnect> {
  const began = performance.now();
  let delayMs = 10;
  for (let tries = 0; ; tries++) {
    const result = await attempt(path);
    const heldMs = Math.round(performance.now() - began);
    if (!(result instanceof Error)) return { socket: result, heldMs };
    if (tries === 0) options.onHold?.();
    if (options.gone()) return { socket: null, heldMs, reason: 'gone' };
    if (heldMs >= options.holdMs) return { socket: null, heldMs, reason: 'timeout' };
    await new Promise((resolve) => setTimeout(resolve, Math.min(delayMs, Math.max(1, options.holdMs - heldMs))));
    delayMs = Math.min(100, delayMs * 2);
  }
}

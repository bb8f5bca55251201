// A request refused before its body arrived (an early 4xx on an upload: too large by Content-Length,
// not authenticated, wrong media type) must not keep its client waiting. On a keep-alive connection
// Node would read and discard the whole rest of the body before the connection is free again, and
// many clients only look at the answer once they have sent everything: a large upload then hangs
// for as long as the transfer takes. `Connection: close` makes Node hang up as soon as the answer
// is flushed (res._last → socket.destroySoon), so the client sees the error at once.
import type { IncomingMessage } from 'node:http';

/** A rest of body this small is cheaper to read and discard than a new connection for the client. */
export const SMALL_UNREAD_BODY_BYTES = 64 * 1024;

/**
 * Whether an answer must close the connection: an error sent while a body that is not known to be
 * small is still arriving, or that stopped arriving (408) (`complete` is undefined for injected requests: no connection to close). Pure.
 */
export function mustCloseAfterReply(status: number, bodyComplete: boolean | undefined, declaredLength: string | undefined): boolean {
  if (status < 400 || bodyComplete !== false) return false;
  // 408: the body stopped arriving, so even a small rest would never be drained.
  if (status === 408) return true;
  const small = declaredLength !== undefined && /^[0-9]+$/.test(declaredLength) && Number(declaredLength) <= SMALL_UNREAD_BODY_BYTES;
  return !small;
}

/** The `connection` header to add to an answer of `request`, or undefined to leave keep-alive alone. */
export function connectionHeaderFor(status: number, request: Pick<IncomingMessage, 'complete' | 'headers'>): 'close' | undefined {
  return mustCloseAfterReply(status, request.complete, request.headers['content-length']) ? 'close' : undefined;
}

// Adapting node:http to the Fetch handler: IncomingMessage → Request, Response → ServerResponse
// (streamed chunk by chunk so server-sent events flow; a closed socket cancels the body).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { knownJsonBody } from './responses.js';

/** Options of toFetchRequest. */
export interface NodeRequestOptions {
  /** Trust X-Forwarded-Proto/Host from a proxy in front of the app (default false). */
  trustProxy?: boolean;
}

/**
 * Build a Fetch Request from a node request (body streamed, not buffered). Pass `res` so the request's
 * signal aborts when the client goes away before the response finished (e.g. a closed live stream).
 */
export function toFetchRequest(req: IncomingMessage, options: NodeRequestOptions = {}, res?: ServerResponse): Request {
  const forwardedProto = options.trustProxy
    ? String(req.headers['x-forwarded-proto'] ?? '')
        .split(',')[0]
        ?.trim()
    : '';
  const forwardedHost = options.trustProxy
    ? String(req.headers['x-forwarded-host'] ?? '')
        .split(',')[0]
        ?.trim()
    : '';
  const protocol = forwardedProto || ('encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http');
  const host = forwardedHost || req.headers.host || 'localhost';
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const controller = new AbortController();
  req.once('close', () => {
    if (!req.complete) controller.abort();
  });
  res?.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(`${protocol}://${host}${req.url ?? '/'}`, {
    method,
    headers,
    signal: controller.signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}

/** Write a Fetch Response to a node response, streaming the body; cancels the body if the client leaves. */
export async function sendFetchResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name === 'set-cookie') return;
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  const known = knownJsonBody(response);
  if (known !== undefined) {
    // The runtime's own JSON: headers and body in one write, with Content-Length; the stream is never read.
    headers['content-length'] = String(Buffer.byteLength(known));
    res.writeHead(response.status, headers);
    res.end(known);
    return;
  }
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const onClose = () => void reader.cancel().catch(() => undefined);
  res.once('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
      if (res.destroyed) break;
    }
  } catch {
    // The body failed or was cancelled because the client left; nothing more to send.
  } finally {
    res.off('close', onClose);
    res.end();
  }
}

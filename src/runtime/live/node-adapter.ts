// node:http ⇄ Fetch adapter with a fast path: live responses are written straight to the socket
// (one shared Buffer per snapshot, no stream pump); everything else goes through the runtime's
// own adapter (http/node-adapter.ts), streamed with backpressure, never buffered.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { sendFetchResponse, toFetchRequest, type NodeRequestOptions } from '../http/node-adapter.js';
import { claimLiveConnection } from './live-response.js';
import { NodeSink } from './live-sink.js';

/** A Fetch-style handler such as the one createFetchHandler returns. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** Convert a Fetch handler into a node:http request listener (live streams take the direct path). */
export function toNodeHandler(handler: FetchHandler, options: NodeRequestOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void serve(handler, req, res, options);
  };
}

/** An http.Server (not listening) serving a Fetch handler, tuned for many long-lived streams. */
export function createNodeLiveServer(handler: FetchHandler, options: NodeRequestOptions = {}): Server {
  const server = createServer({ noDelay: true, keepAliveTimeout: 5_000 }, toNodeHandler(handler, options));
  // Live streams are long-lived: no whole-request or idle timeout once headers have arrived.
  server.requestTimeout = 0;
  server.timeout = 0;
  server.maxConnections = Number.MAX_SAFE_INTEGER;
  return server;
}

async function serve(handler: FetchHandler, req: IncomingMessage, res: ServerResponse, options: NodeRequestOptions): Promise<void> {
  let response: Response;
  try {
    response = await handler(toFetchRequest(req, options));
  } catch {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ error: { code: 'SVC_RUNTIME_INTERNAL', message: 'Internal error' } }));
    return;
  }
  const live = claimLiveConnection(response);
  if (!live) return sendFetchResponse(res, response);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  // No chunked framing: the stream owns the connection (Connection: close) and frames go to the socket as is.
  res.useChunkedEncodingByDefault = false;
  res.writeHead(response.status, headers);
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  res.once('close', () => live.close());
  live.attach(new NodeSink(res));
}

// node:http ⇄ Fetch adapter. Live responses are written straight to the socket (one shared
// Buffer per snapshot, no stream pump); other responses stream with backpressure, never buffered.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { claimLiveConnection } from './live-response.js';
import { NodeSink } from './live-sink.js';

/** A Fetch-style handler such as the one createFetchHandler returns. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** Convert a Fetch handler into a node:http request listener. */
export function toNodeHandler(handler: FetchHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void serve(handler, req, res);
  };
}

/** An http.Server (not listening) serving a Fetch handler, tuned for many long-lived streams. */
export function createNodeLiveServer(handler: FetchHandler): Server {
  const server = createServer({ noDelay: true, keepAliveTimeout: 5_000 }, toNodeHandler(handler));
  // Live streams are long-lived: no whole-request or idle timeout once headers have arrived.
  server.requestTimeout = 0;
  server.timeout = 0;
  server.maxConnections = Number.MAX_SAFE_INTEGER;
  return server;
}

async function serve(handler: FetchHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const abort = new AbortController();
  res.once('close', () => abort.abort());
  let response: Response;
  try {
    response = await handler(toRequest(req, abort.signal));
  } catch {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ error: { code: 'SVC_RUNTIME_INTERNAL', message: 'Internal error' } }));
    return;
  }
  const live = claimLiveConnection(response);
  writeHead(res, response);
  if (live) {
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    res.once('close', () => live.close());
    live.attach(new NodeSink(res));
    return;
  }
  await pipeBody(response, res);
}

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    if (name.startsWith(':')) continue;
    headers.append(name, req.rawHeaders[i + 1]!);
  }
  const url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const init: RequestInit & { duplex?: 'half' } = { method: req.method ?? 'GET', headers, signal };
  if (hasBody) {
    init.body = Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>;
    init.duplex = 'half';
  }
  return new Request(url, init);
}

function writeHead(res: ServerResponse, response: Response): void {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  res.writeHead(response.status, response.statusText || undefined, headers);
}

async function pipeBody(response: Response, res: ServerResponse): Promise<void> {
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.once('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) return;
      if (!res.write(value)) {
        // Backpressure: stop reading until the socket drains, so the source stream's queue grows
        // (a live stream sees that as a slow consumer and disconnects).
        await new Promise<void>((resolve) => {
          const done = (): void => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.once('drain', done);
          res.once('close', done);
        });
      }
    }
    res.end();
  } catch {
    res.destroy();
  }
}

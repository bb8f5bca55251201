// A live connection as a Fetch Response whose body is a ReadableStream (never buffered).
// node-adapter.ts may "claim" the connection instead and write frames to the socket directly.
import type { LiveConnection } from './live-connection.js';
import { StreamSink } from './live-sink.js';

/** Headers of every live stream: event stream, no caching, no proxy buffering. */
const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-store, no-transform',
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
};

const claimable = new WeakMap<Response, LiveConnection>();

/** Build the streaming Response for a connection; the stream takes over on the next macrotask unless claimed. */
export function liveResponse(conn: LiveConnection, maxQueueBytes: number): Response {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      cancel() {
        conn.close();
      },
    },
    { highWaterMark: maxQueueBytes, size: (chunk) => chunk.byteLength },
  );
  const response = new Response(stream, { status: 200, headers: SSE_HEADERS });
  claimable.set(response, conn);
  setImmediate(() => {
    if (conn.pending) conn.attach(new StreamSink(controller, maxQueueBytes));
  });
  return response;
}

/** Take a live Response's connection for direct writing (node fast path); undefined if not live or already streaming. */
export function claimLiveConnection(response: Response): LiveConnection | undefined {
  const conn = claimable.get(response);
  if (!conn || !conn.pending) return undefined;
  claimable.delete(response);
  return conn;
}

/** A JSON error Response in the runtime's `{ error: { code, message } }` shape. */
export function liveErrorResponse(status: number, code: string, message: string): Response {
  return new Response(JSON.stringify({ error: { code, message } }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  });
}

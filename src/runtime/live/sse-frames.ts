// Server-sent event frames. Snapshot frames are encoded once per rerun and the same
// Buffer is written to every subscriber of that query.
import type { LiveErrorBody } from './live-types.js';

/** `: heartbeat` comment keeps proxies and clients from timing the stream out. */
export const HEARTBEAT_FRAME: Buffer = Buffer.from(': heartbeat\n\n');

/** Encode a snapshot: `id: <revision>`, `event: snapshot`, `data: {"value":...,"revision":...}`. */
export function encodeSnapshotFrame(valueJson: string, revision: number): Buffer {
  // JSON.stringify escapes CR and LF, so the data is always a single line.
  return Buffer.from(`id: ${revision}\nevent: snapshot\ndata: {"value":${valueJson},"revision":${revision}}\n\n`);
}

/** Encode an error event (no id, so the client's Last-Event-ID stays at its last snapshot). */
export function encodeErrorFrame(body: LiveErrorBody): Buffer {
  return Buffer.from(`event: error\ndata: ${JSON.stringify(body)}\n\n`);
}

/** Opening frame: the reconnection delay hint for generic EventSource clients. */
export function encodeRetryFrame(retryMs: number): Buffer {
  return Buffer.from(`retry: ${Math.max(0, Math.floor(retryMs))}\n\n`);
}

// The route session between the control plane and the ingress process: after `{"op":"attach"}` on
// the command socket, JSON lines both ways on the same connection. The control plane sends the whole
// table on every (re)connect, then each change; the ingress answers drains (it owns the app
// connections), sends request records in batches and asks to wake asleep routes its requests wait
// on. Both sides read with `readLines`.
import type { Socket } from 'node:net';
import { z } from 'zod';
import type { RequestRecord } from '../request-record.js';
import type { RouteSettings, RouteState } from '../route-state.js';

/** A request record as it travels between processes (the route session, an ingress handoff). */
export const requestRecordSchema = z.object({
  projectId: z.string(),
  releaseId: z.string().nullable(),
  generation: z.number(),
  method: z.string(),
  status: z.number(),
  latencyMs: z.number(),
  bytes: z.number(),
  aborted: z.boolean(),
  streamError: z.boolean(),
  platform: z.boolean().optional(),
  endedAt: z.number().optional(),
});

/** Control plane → ingress. */
export type SessionCommand =
  | { op: 'snapshot'; settings: RouteSettings; routes: RouteState[] }
  | { op: 'route'; route: RouteState }
  | { op: 'remove'; projectId: string }
  | { op: 'drain'; id: number; target: string; timeoutMs: number };

/**
 * Ingress → control plane. `dropped`: records lost since the last batch because the buffer was full.
 * `wake`: requests began waiting for an asleep route (once per hold, again on each attach while held).
 */
export type SessionEvent =
  { type: 'drained'; id: number; ok: boolean } | { type: 'records'; records: RequestRecord[]; dropped: number } | { type: 'wake'; projectId: string };

/** Longest line either side accepts (a snapshot of a large table is one line). */
const MAX_LINE = 64 * 1024 * 1024;

/** Call `onLine` with each parsed JSON line (after `rest`, what was read before the hand-over); a bad line ends the session. */
export function readLines(socket: Socket, rest: string, onLine: (value: unknown) => void): void {
  let buffer = rest;
  const drainBuffer = (): void => {
    let newline: number;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        socket.destroy();
        return;
      }
      onLine(value);
    }
    if (buffer.length > MAX_LINE) socket.destroy();
  };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    drainBuffer();
  });
  drainBuffer();
}

/** Write one JSON line (false when the socket is gone). */
export function writeLine(socket: Socket, value: SessionCommand | SessionEvent | { op: 'attach' }): boolean {
  if (socket.destroyed || !socket.writable) return false;
  socket.write(`${JSON.stringify(value)}\n`);
  return true;
}

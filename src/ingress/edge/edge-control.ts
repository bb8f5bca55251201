// The ingress process's command socket: one JSON object per line each way. The control plane asks
// `status` at start (is an ingress running for this data dir, on which address), `stop` when
// everything stops, `routes` for the live table with in-flight counts, `clear-routes` when it routes
// apps itself, `handoff` to pass the listening socket to a new ingress process (handoff.ts; the
// reply carries the successor's status). A first line `{"op":"attach"}` turns the connection into the control plane's route
// session (edge-session.ts). Server and client live here so the protocol has one definition.
import { connect, createServer, type Server, type Socket } from 'node:net';

export type EdgeCommand = { op: 'status' } | { op: 'stop' } | { op: 'routes' } | { op: 'clear-routes' } | { op: 'handoff'; entry?: string };
const COMMANDS = new Set(['status', 'stop', 'routes', 'clear-routes', 'handoff']);

/** A live route of the ingress process's table. */
export interface EdgeRoute {
  projectId: string;
  hosts: string[];
  upstream: { host: string; port: number } | null;
  releaseId: string | null;
  generation: number;
  inFlight: number;
  /** Of those, open live-query streams (absent from ingress processes older than the count). */
  liveStreams?: number;
}

export interface EdgeStatus {
  pid: number;
  /** The address it was asked to listen on (`host:port`, port may be 0). */
  listen: string;
  /** The bound address. */
  address: { host: string; port: number };
  startedAt: number;
  /** Identity of the ingress code it runs (ingress-build.ts); absent from ingresses older than handoffs. */
  build?: string;
  /** Requests that waited for the control plane, how many got 503 at the bound, and the longest wait. */
  holds: { count: number; unavailable: number; longestMs: number };
  /** Direct routing to apps: whether a table is loaded, how many projects, whether a control plane is attached, request records waiting and dropped. */
  routing: { table: boolean; projects: number; attached: boolean; recordsBuffered: number; recordsDropped: number };
}

export type EdgeReply = { ok: true; status: EdgeStatus; routes?: EdgeRoute[] } | { ok: false; error: string };

/** Serve commands on `path` (mode 0600 is set by the caller); `attach` hands the socket (and what followed the line) to `onAttach`. */
export function serveEdgeCommands(
  path: string,
  handle: (command: EdgeCommand) => EdgeReply | Promise<EdgeReply>,
  onAttach?: (socket: Socket, rest: string) => void,
): Promise<Server> {
  const server = createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    const onData = (chunk: string) => {
      buffer += chunk;
      if (buffer.length > 64 * 1024) return socket.destroy();
      let newline: number;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        let reply: EdgeReply | Promise<EdgeReply>;
        try {
          const command = JSON.parse(line) as { op?: unknown };
          if (command.op === 'attach' && onAttach) {
            socket.off('data', onData);
            onAttach(socket, buffer);
            return;
          }
          reply = typeof command.op === 'string' && COMMANDS.has(command.op) ? handle(command as EdgeCommand) : { ok: false, error: 'unknown op' };
        } catch (error) {
          reply = { ok: false, error: (error as Error).message };
        }
        void Promise.resolve(reply)
          .catch((error: unknown): EdgeReply => ({ ok: false, error: (error as Error).message }))
          .then((answer) => {
            if (socket.writable) socket.write(`${JSON.stringify(answer)}\n`);
          });
      }
    };
    socket.on('data', onData);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Send one command; null when no ingress answers on `path` (none running, or a stale socket). */
export function askEdge(path: string, command: EdgeCommand, timeoutMs = 2_000): Promise<EdgeReply | null> {
  return new Promise((resolve) => {
    const socket = connect({ path });
    let buffer = '';
    const settle = (reply: EdgeReply | null) => {
      socket.destroy();
      resolve(reply);
    };
    socket.setTimeout(timeoutMs, () => settle(null));
    socket.setEncoding('utf8');
    socket.once('error', () => settle(null));
    socket.once('connect', () => socket.write(`${JSON.stringify(command)}\n`));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const newline = buffer.indexOf('\n');
      if (newline === -1) return;
      try {
        settle(JSON.parse(buffer.slice(0, newline)) as EdgeReply);
      } catch {
        settle(null);
      }
    });
    socket.once('close', () => settle(null));
  });
}

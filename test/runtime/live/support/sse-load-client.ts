// Load client for B3 and the 10k-subscriber test, run as a child process (IPC). It opens many raw
// TCP SSE connections, then times write → SSE receipt per connection on its own clock.
import { request as httpRequest, Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

export type LoadCommand =
  | { type: 'open'; port: number; paths: string[]; count: number; batch?: number }
  | { type: 'round'; port: number; method: string; path: string; body: string; headers?: Record<string, string>; timeoutMs: number }
  | { type: 'mutate'; port: number; path: string; body: string; headers?: Record<string, string>; count: number }
  | { type: 'close' };

export type LoadReply =
  | { type: 'opened'; count: number; failed: number; ms: number }
  | { type: 'round'; latencies: number[]; missing: number; status: number }
  | { type: 'mutated'; latencies: number[] }
  | { type: 'closed' }
  | { type: 'error'; message: string };

interface Conn {
  socket: Socket;
  lastId: number;
  lastAt: number;
  tail: string;
  onAdvance?: () => void;
}

const conns: Conn[] = [];
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const ID = /id: (\d+)\n/g;

function openOne(port: number, path: string): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', noDelay: true });
    const conn: Conn = { socket, lastId: -1, lastAt: 0, tail: '' };
    const timer = setTimeout(() => reject(new Error('no first snapshot within 30 s')), 30_000);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      const text = conn.tail + chunk;
      conn.tail = text.slice(-24);
      ID.lastIndex = 0;
      let match: RegExpExecArray | null;
      let advanced = false;
      while ((match = ID.exec(text)) !== null) {
        const id = Number(match[1]);
        if (id > conn.lastId) {
          conn.lastId = id;
          advanced = true;
        }
      }
      if (advanced) {
        conn.lastAt = performance.now();
        if (conn.onAdvance) conn.onAdvance();
        else {
          clearTimeout(timer);
          resolve(conn);
        }
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`);
  });
}

function post(port: number, path: string, method: string, body: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method, agent, headers: { 'content-type': 'application/json', origin: `http://127.0.0.1:${port}`, ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function handle(cmd: LoadCommand): Promise<LoadReply> {
  if (cmd.type === 'open') {
    const started = performance.now();
    let failed = 0;
    const batch = cmd.batch ?? 250;
    for (let i = 0; i < cmd.count; i += batch) {
      const opened = await Promise.allSettled(
        Array.from({ length: Math.min(batch, cmd.count - i) }, (_, j) => openOne(cmd.port, cmd.paths[(i + j) % cmd.paths.length]!)),
      );
      for (const r of opened) {
        if (r.status === 'fulfilled') conns.push(r.value);
        else failed++;
      }
    }
    for (const c of conns) c.onAdvance = () => undefined;
    return { type: 'opened', count: conns.length, failed, ms: performance.now() - started };
  }
  if (cmd.type === 'round') {
    const before = conns.map((c) => c.lastId);
    let waiting = conns.length;
    let finish: () => void = () => undefined;
    const allIn = new Promise<void>((r) => (finish = r));
    conns.forEach((c, i) => {
      c.onAdvance = () => {
        if (c.lastId > before[i]! && c.onAdvance) {
          c.onAdvance = () => undefined;
          if (--waiting === 0) finish();
        }
      };
    });
    const t0 = performance.now();
    const status = await post(cmd.port, cmd.path, cmd.method, cmd.body, cmd.headers);
    if (waiting > 0) await Promise.race([allIn, new Promise((r) => setTimeout(r, cmd.timeoutMs))]);
    const latencies: number[] = [];
    let missing = 0;
    conns.forEach((c, i) => {
      if (c.lastId > before[i]!) latencies.push(c.lastAt - t0);
      else missing++;
      c.onAdvance = () => undefined;
    });
    return { type: 'round', latencies, missing, status };
  }
  if (cmd.type === 'mutate') {
    const latencies: number[] = [];
    for (let i = 0; i < cmd.count; i++) {
      const t0 = performance.now();
      await post(cmd.port, cmd.path, 'POST', cmd.body, cmd.headers);
      latencies.push(performance.now() - t0);
    }
    return { type: 'mutated', latencies };
  }
  for (const c of conns.splice(0)) c.socket.destroy();
  return { type: 'closed' };
}

process.on('message', (cmd: LoadCommand) => {
  handle(cmd).then(
    (reply) => process.send!(reply),
    (error: unknown) => process.send!({ type: 'error', message: String(error) } satisfies LoadReply),
  );
});
process.on('disconnect', () => process.exit(0));

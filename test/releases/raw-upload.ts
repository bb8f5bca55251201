// A hand-driven HTTP/1.1 upload over a real socket: headers and as much of the body as the test wants
// sent, then the socket left open (a stalled or still-sending client). Reads the raw answer.
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from sending the headers to the end of the answer's body. */
  elapsedMs: number;
}

export interface RawUpload {
  socket: Socket;
  /** The answer, as soon as its whole body arrived (the socket may stay open). */
  answer: Promise<RawAnswer>;
  /** Resolves when the server closed the connection. */
  closed: Promise<void>;
}

/** Open a keep-alive connection to `port` and send a request head plus `body` (not necessarily all of it). */
export function startRawUpload(port: number, path: string, headers: Record<string, string>, body: Buffer): RawUpload {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined); // a reset after the answer is expected when the server cuts a body short
  const started = Date.now();
  let received = Buffer.alloc(0);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      const parsed = parseAnswer(received);
      if (parsed) {
        socket.off('data', onData);
        resolve({ ...parsed, elapsedMs: Date.now() - started });
      }
    };
    socket.on('data', onData);
    socket.on('close', () => reject(new Error(`connection closed before a complete answer: ${received.toString('latin1').slice(0, 200)}`)));
  });
  answer.catch(() => undefined);
  const head = [
    `POST ${path} HTTP/1.1`,
    'host: 127.0.0.1:7070',
    'connection: keep-alive',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ].join('\r\n');
  socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  return { socket, answer, closed };
}

function parseAnswer(bytes: Buffer): Omit<RawAnswer, 'elapsedMs'> | null {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  const length = Number(headers['content-length'] ?? NaN);
  if (!Number.isFinite(length) || bytes.length - end - 4 < length) return null;
  return { status: Number(statusLine!.split(' ')[1]), headers, body: bytes.subarray(end + 4, end + 4 + length).toString('utf8') };
}

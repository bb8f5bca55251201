// A minimal WebSocket client for tests (no dependency): the handshake over node:http, masked text
// frames out, unmasked frames in. Enough to talk to fixtures/apps/websocket-echo through an ingress.
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Socket } from 'node:net';

const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export interface TestWebSocket {
  /** The response headers of the 101. */
  headers: Record<string, string | string[] | undefined>;
  send(text: string): void;
  /** The next text message (rejects when the connection closes first or after `timeoutMs`). */
  next(timeoutMs?: number): Promise<string>;
  /** Send a text message and wait for the next one. */
  echo(text: string, timeoutMs?: number): Promise<string>;
  /** Resolves when the connection is closed (by either side). */
  closed: Promise<void>;
  readonly isClosed: boolean;
  close(): void;
}

/** The outcome of an upgrade the server did not accept. */
export class UpgradeRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`upgrade refused with ${status}: ${body}`);
  }
}

function maskedText(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  const length = payload.length;
  const head = length < 126 ? Buffer.from([0x81, 0x80 | length]) : Buffer.from([0x81, 0x80 | 126, length >> 8, length & 255]);
  const body = Buffer.alloc(length);
  for (let i = 0; i < length; i++) body[i] = payload[i]! ^ mask[i % 4]!;
  return Buffer.concat([head, mask, body]);
}

/** Open a WebSocket to `http://127.0.0.1:<port><path>` with the given Host (and other headers). */
export function openWebSocket(port: number, host: string, path = '/ws', headers: Record<string, string> = {}): Promise<TestWebSocket> {
  const key = randomBytes(16).toString('base64');
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path,
      agent: false,
      headers: { host, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': key, ...headers },
    });
    req.once('error', reject);
    req.once('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.once('end', () => reject(new UpgradeRefused(res.statusCode ?? 0, body)));
      res.once('error', () => reject(new UpgradeRefused(res.statusCode ?? 0, body)));
    });
    req.once('upgrade', (res, socket: Socket, head: Buffer) => {
      const expected = createHash('sha1')
        .update(key + WS_GUID)
        .digest('base64');
      if (res.headers['sec-websocket-accept'] !== expected) {
        socket.destroy();
        reject(new Error('bad sec-websocket-accept'));
        return;
      }
      resolve(wrap(socket, head, res.headers));
    });
    req.end();
  });
}

function wrap(socket: Socket, head: Buffer, headers: TestWebSocket['headers']): TestWebSocket {
  let buffer = head;
  const messages: string[] = [];
  const waiters: { resolve: (text: string) => void; reject: (error: Error) => void }[] = [];
  let isClosed = false;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const parse = (): void => {
    for (;;) {
      if (buffer.length < 2) return;
      const opcode = buffer[0]! & 0x0f;
      let length = buffer[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffer.length < 4) return;
        length = buffer.readUInt16BE(2);
        offset = 4;
      }
      if (buffer.length < offset + length) return;
      const payload = buffer.subarray(offset, offset + length).toString('utf8');
      buffer = buffer.subarray(offset + length);
      if (opcode !== 1) continue;
      const waiter = waiters.shift();
      if (waiter) waiter.resolve(payload);
      else messages.push(payload);
    }
  };
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    parse();
  });
  socket.on('error', () => socket.destroy());
  socket.once('close', () => {
    isClosed = true;
    for (const waiter of waiters.splice(0)) waiter.reject(new Error('websocket closed'));
  });
  parse();
  const next = (timeoutMs = 5_000): Promise<string> => {
    const ready = messages.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (isClosed) return Promise.reject(new Error('websocket closed'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const at = waiters.findIndex((w) => w.resolve === done);
        if (at !== -1) waiters.splice(at, 1);
        reject(new Error(`no message within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = (text: string): void => {
        clearTimeout(timer);
        resolve(text);
      };
      waiters.push({ resolve: done, reject: (error) => (clearTimeout(timer), reject(error)) });
    });
  };
  return {
    headers,
    send: (text) => void socket.write(maskedText(text)),
    next,
    echo(text, timeoutMs) {
      socket.write(maskedText(text));
      return next(timeoutMs);
    },
    closed,
    get isClosed() {
      return isClosed;
    },
    close: () => socket.destroy(),
  };
}

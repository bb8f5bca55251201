// The ingress process (src/ingress/edge/ingress-main.ts) as a real child process on port 0, in front
// of a stand-in control plane: a plain node:http server on `<data>/run/control.sock` that this test
// starts, stops and breaks at will.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes } from '../../../src/core/error-codes/index.js';
import { askEdge } from '../../../src/ingress/edge/edge-control.js';
import { CONTROL_PLANE_CONNECTION_LOST, CONTROL_PLANE_UNAVAILABLE } from '../../../src/ingress/edge/edge-errors.js';
import { edgePaths } from '../../../src/ingress/edge/edge-paths.js';
import { spawnEdgeIngress } from './spawn-edge-ingress.js';

let dir: string;
let child: ChildProcess;
let port: number;
let controlSocket: string;
const HOLD_MS = 1_500;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-edge-'));
  controlSocket = edgePaths(dir).controlSocket;
  ({ child, port } = await spawnEdgeIngress({ dir, holdMs: HOLD_MS }));
}, 30_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
});

/** A stand-in control plane on the control socket. */
async function controlPlane(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(controlSocket, resolve));
  return server;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

function send(options: {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}): Promise<{ status: number; headers: IncomingMessage['headers']; text: string; ms: number }> {
  const began = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path ?? '/', headers: options.headers, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text, ms: performance.now() - began }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('svc-ingress process', () => {
  it('uses error codes that exist in the registry', () => {
    expect(errorCodes[CONTROL_PLANE_UNAVAILABLE]?.status).toBe(503);
    expect(errorCodes[CONTROL_PLANE_CONNECTION_LOST]?.status).toBe(502);
  });

  it('holds a request while no control plane listens and answers 503 SVC_CONTROL_PLANE_UNAVAILABLE with Retry-After after the bound', async () => {
    const answer = await send({ path: '/api/x' });
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'SVC_CONTROL_PLANE_UNAVAILABLE' } });
    expect(answer.ms).toBeGreaterThanOrEqual(HOLD_MS - 50);
  });

  it('delivers a held request (body included) once the control plane listens, with the client address it trusts', async () => {
    const pending = send({
      method: 'POST',
      path: '/echo?q=1',
      headers: { 'content-type': 'text/plain', 'x-svc-client-address': '6.6.6.6' },
      body: 'x'.repeat(200_000),
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const seen: { client?: string; length?: number; url?: string }[] = [];
    const server = await controlPlane((req, res) => {
      let length = 0;
      req.on('data', (c: Buffer) => (length += c.length));
      req.on('end', () => {
        seen.push({ client: req.headers['x-svc-client-address'] as string, length, url: req.url });
        res.writeHead(201, { 'content-type': 'text/plain' }).end('stored');
      });
    });
    try {
      const answer = await pending;
      expect(answer).toMatchObject({ status: 201, text: 'stored' });
      expect(answer.ms).toBeGreaterThanOrEqual(350);
      // One delivery, the client's spoofed header replaced by the real address.
      expect(seen).toEqual([{ client: '127.0.0.1', length: 200_000, url: '/echo?q=1' }]);
      const status = await askEdge(edgePaths(dir).ingressSocket, { op: 'status' });
      expect(status).toMatchObject({ ok: true, status: { holds: { unavailable: 1 } } });
    } finally {
      await close(server);
    }
  });

  it('never retries a request the control plane received and then dropped: 502 SVC_CONTROL_PLANE_CONNECTION_LOST', async () => {
    let deliveries = 0;
    const server = await controlPlane((req) => {
      deliveries++;
      req.socket.destroy();
    });
    try {
      const answer = await send({ method: 'POST', path: '/api/deploy', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
      expect(answer.status).toBe(502);
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'SVC_CONTROL_PLANE_CONNECTION_LOST' } });
      expect(deliveries).toBe(1);
    } finally {
      await close(server);
    }
  });

  it('streams responses as they are written (server-sent events) and tunnels upgrades byte for byte', async () => {
    const server = await controlPlane((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      setTimeout(() => res.end('data: two\n\n'), 300);
    });
    server.on('upgrade', (req, socket) => {
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nupgrade: echo\r\nconnection: Upgrade\r\nx-client: ${String(req.headers['x-svc-client-address'])}\r\n\r\n`,
      );
      socket.pipe(socket);
    });
    try {
      const first = await new Promise<{ chunk: string; ms: number }>((resolve, reject) => {
        const began = performance.now();
        request({ host: '127.0.0.1', port, path: '/events', agent: false }, (res) =>
          res.once('data', (c: Buffer) => resolve({ chunk: c.toString(), ms: performance.now() - began })),
        )
          .on('error', reject)
          .end();
      });
      expect(first.chunk).toBe('data: one\n\n');
      expect(first.ms).toBeLessThan(250);

      const socket = connect({ host: '127.0.0.1', port });
      socket.write('GET /ws HTTP/1.1\r\nhost: a.localhost\r\nconnection: Upgrade\r\nupgrade: echo\r\n\r\n');
      let received = '';
      socket.setEncoding('utf8').on('data', (c: string) => {
        received += c;
        if (received.includes('\r\n\r\n') && !received.includes('ping')) socket.write('ping');
      });
      await new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (received.includes('ping')) {
            clearInterval(check);
            resolve();
          }
        }, 10);
      });
      expect(received).toMatch(/^HTTP\/1.1 101/);
      expect(received).toContain('x-client: 127.0.0.1');
      socket.destroy();
    } finally {
      await close(server);
    }
  });
});

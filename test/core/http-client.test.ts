// The one outbound HTTP client against real servers on port 0: answers of any status (redirects handed
// back, never followed), the whole-exchange timeout (before headers and mid-body), the caller's abort,
// oversize bodies (declared and streamed), connection refused, and request bodies of each kind.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient, HttpFailure } from '../../src/core/http/http-client.js';

let server: Server;
let origin: string;
const routes: Record<string, (req: IncomingMessage, res: ServerResponse, body: Buffer) => void> = {
  '/echo': (req, res, body) =>
    res
      .writeHead(201, { 'content-type': 'application/json', 'x-seen': req.headers['x-call'] ?? '' })
      .end(JSON.stringify({ method: req.method, body: body.toString() })),
  '/redirect': (_req, res) => res.writeHead(302, { location: '/echo' }).end(),
  '/busy': (_req, res) => res.writeHead(503, { 'retry-after': '3' }).end('busy'),
  '/silent': () => undefined, // never answers
  '/trickle': (_req, res) => {
    res.writeHead(200);
    res.write('x');
    // the rest never comes
  },
  '/big-declared': (_req, res) => res.writeHead(200, { 'content-length': String(4096) }).end(Buffer.alloc(4096)),
  '/big-chunked': (_req, res) => {
    res.writeHead(200);
    for (let i = 0; i < 8; i++) res.write(Buffer.alloc(1024));
    res.end();
  },
  '/slow-ok': (_req, res) => setTimeout(() => res.writeHead(200).end('late'), 300),
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => routes[new URL(req.url ?? '/', 'http://x').pathname]?.(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const client = createHttpClient();
const failureOf = async (p: Promise<unknown>): Promise<HttpFailure> => {
  try {
    await p;
  } catch (error) {
    expect(error).toBeInstanceOf(HttpFailure);
    return error as HttpFailure;
  }
  throw new Error('expected a failure');
};

describe('http client', () => {
  it('sends headers and a body of each kind and returns status, headers and body', async () => {
    for (const body of ['text', new TextEncoder().encode('bytes'), Readable.from([Buffer.from('str'), Buffer.from('eam')])]) {
      const answer = await client.send({ method: 'POST', url: `${origin}/echo`, headers: { 'x-call': 'yes' }, body });
      expect(answer.status).toBe(201);
      expect(answer.header('X-Seen')).toBe('yes');
      expect(JSON.parse(answer.text())).toEqual({ method: 'POST', body: typeof body === 'string' ? 'text' : body instanceof Uint8Array ? 'bytes' : 'stream' });
    }
  });

  it('hands a redirect back without following it, and a 503 with its Retry-After', async () => {
    const redirect = await client.send({ method: 'GET', url: `${origin}/redirect` });
    expect([redirect.status, redirect.header('location')]).toEqual([302, '/echo']);
    const busy = await client.send({ method: 'GET', url: new URL('/busy', origin) });
    expect([busy.status, busy.header('retry-after'), busy.text()]).toEqual([503, '3', 'busy']);
  });

  it('bounds the whole exchange: no headers, or a body that stops, is a timeout', async () => {
    const started = Date.now();
    expect((await failureOf(client.send({ method: 'GET', url: `${origin}/silent`, timeoutMs: 200 }))).reason).toBe('timeout');
    expect((await failureOf(client.send({ method: 'GET', url: `${origin}/trickle`, timeoutMs: 200 }))).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(5000);
    // Without a whole-exchange bound, an idle bound still ends a body that stopped (a stalled download).
    expect((await failureOf(client.send({ method: 'GET', url: `${origin}/trickle`, timeoutMs: null, idleTimeoutMs: 200 }))).reason).toBe('timeout');
    // The bound is the whole exchange, not undici's per-phase defaults: a longer bound lets a slow answer finish.
    expect((await client.send({ method: 'GET', url: `${origin}/slow-ok`, timeoutMs: 2000 })).text()).toBe('late');
  });

  it("tells the caller's abort from a timeout", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    expect((await failureOf(client.send({ method: 'GET', url: `${origin}/silent`, signal: controller.signal, timeoutMs: null }))).reason).toBe('aborted');
    expect((await failureOf(client.send({ method: 'GET', url: `${origin}/echo`, signal: AbortSignal.abort() }))).reason).toBe('aborted');
  });

  it('refuses a body over the bound, declared or streamed', async () => {
    expect((await failureOf(client.send({ method: 'GET', url: `${origin}/big-declared`, maxBodyBytes: 1000 }))).reason).toBe('too-large');
    expect((await failureOf(client.send({ method: 'GET', url: `${origin}/big-chunked`, maxBodyBytes: 5000 }))).reason).toBe('too-large');
    expect((await client.send({ method: 'GET', url: `${origin}/big-chunked`, maxBodyBytes: 8192 })).body.length).toBe(8192);
  });

  it('streams a body to the caller through open()', async () => {
    const stream = await client.open({ method: 'GET', url: `${origin}/big-chunked` });
    let total = 0;
    for await (const chunk of stream.body) total += chunk.byteLength;
    expect([stream.status, total]).toEqual([200, 8192]);
  });

  it('reports connection refused as a network failure naming the cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const failure = await failureOf(client.send({ method: 'GET', url: `http://127.0.0.1:${port}/` }));
    expect(failure.reason).toBe('network');
    expect(failure.message).toContain('ECONNREFUSED');
    expect(failure.detail).toBe('ECONNREFUSED');
  });
});

// The transport against a real node:http server on port 0 (stands in for failure modes the
// control plane cannot easily be made to produce: 503 without a body, garbage JSON, bad shapes).
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorFromResponse, sendRequest } from '../../cli/http-request.js';

let server: Server;
let origin: string;
const hits = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const send = (status: number, body: string): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };
    if (path === '/ok') return send(200, JSON.stringify({ value: 1 }));
    if (path === '/wrong-shape') return send(200, JSON.stringify({ value: 'one' }));
    if (path === '/not-json') return send(200, '<html>');
    if (path === '/known') return send(404, JSON.stringify({ error: { code: 'SVC_NOT_FOUND', message: 'no such thing' } }));
    if (path === '/unknown') return send(418, JSON.stringify({ error: { code: 'SVC_FROM_THE_FUTURE', message: 'new server' } }));
    if (path.startsWith('/flaky')) return (hits.get(path) ?? 0) < 3 ? send(503, '') : send(200, JSON.stringify({ value: 2 }));
    if (path === '/echo') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => send(200, JSON.stringify({ value: 3, auth: req.headers.authorization ?? null, body: JSON.parse(body || 'null') })));
      return;
    }
    send(500, 'boom');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const valueSchema = z.object({ value: z.number() });
const noSleep = async (): Promise<void> => {};

describe('sendRequest', () => {
  it('returns the validated body and sends bearer token and JSON body', async () => {
    expect(await sendRequest({ server: origin }, { method: 'GET', path: '/ok', schema: valueSchema })).toEqual({ value: 1 });
    const echoed = await sendRequest(
      { server: origin, token: 'svc_t' },
      { method: 'POST', path: '/echo', body: { a: 1 }, schema: z.object({ auth: z.string(), body: z.unknown() }) },
    );
    expect(echoed).toEqual({ auth: 'Bearer svc_t', body: { a: 1 } });
  });
  it('maps a known server code to SvcError with that code', async () => {
    await expect(sendRequest({ server: origin }, { method: 'GET', path: '/known', schema: valueSchema })).rejects.toMatchObject({
      code: 'SVC_NOT_FOUND',
      details: { status: 404 },
    });
  });
  it('maps an unknown server code to SVC_REMOTE_ERROR keeping the original code', async () => {
    await expect(sendRequest({ server: origin }, { method: 'GET', path: '/unknown', schema: valueSchema })).rejects.toMatchObject({
      code: 'SVC_REMOTE_ERROR',
      details: { remoteCode: 'SVC_FROM_THE_FUTURE', status: 418 },
    });
  });
  it('rejects a body that does not match the contract with SVC_BAD_RESPONSE', async () => {
    await expect(sendRequest({ server: origin }, { method: 'GET', path: '/wrong-shape', schema: valueSchema })).rejects.toMatchObject({
      code: 'SVC_BAD_RESPONSE',
    });
    await expect(sendRequest({ server: origin }, { method: 'GET', path: '/not-json', schema: valueSchema })).rejects.toMatchObject({
      code: 'SVC_BAD_RESPONSE',
    });
  });
  it('retries retryable failures of idempotent requests only', async () => {
    expect(await sendRequest({ server: origin, sleep: noSleep }, { method: 'GET', path: '/flaky-get', schema: valueSchema })).toEqual({ value: 2 });
    expect(hits.get('/flaky-get')).toBe(3);
    await expect(sendRequest({ server: origin, sleep: noSleep }, { method: 'POST', path: '/flaky-post', schema: valueSchema })).rejects.toMatchObject({
      code: 'SVC_UNAVAILABLE',
    });
    expect(hits.get('/flaky-post')).toBe(1);
  });
  it('reports an unreachable server as retryable SVC_NETWORK', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(sendRequest({ server: `http://127.0.0.1:${port}`, sleep: noSleep }, { method: 'GET', path: '/', schema: valueSchema })).rejects.toMatchObject({
      code: 'SVC_NETWORK',
      kind: 'retryable',
    });
  });
});

describe('errorFromResponse', () => {
  it('uses Retry-After and status fallbacks when there is no svc body', () => {
    expect(errorFromResponse(429, '', '2')).toMatchObject({ code: 'SVC_RATE_LIMITED', details: { retryAfterMs: 2000 } });
    expect(errorFromResponse(502, 'bad gateway')).toMatchObject({ code: 'SVC_UNAVAILABLE', kind: 'retryable' });
    expect(errorFromResponse(500, 'boom')).toMatchObject({ code: 'SVC_REMOTE_ERROR', kind: 'fatal' });
  });
});

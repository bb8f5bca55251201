import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Writable } from 'node:stream';
import { SvcError } from '../../src/core/errors.js';
import { createHttpApp, type HttpApp } from '../../src/core/http/create-http-app.js';
import { createLogger } from '../../src/core/logger.js';

describe('HTTP error mapping', () => {
  let app: HttpApp;
  const lines: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    app = await createHttpApp({ logger: createLogger({ level: 'info', destination: sink }), bodyLimitBytes: 1024, trustProxy: false, version: 'test' });
    app.post('/echo', { schema: { body: z.object({ name: z.string().max(10) }), response: { 200: z.object({ name: z.string() }) } } }, async (request) => ({
      name: request.body.name,
    }));
    app.get('/boom', { schema: { response: { 200: z.object({}) } } }, async () => {
      throw new Error('database password is hunter2');
    });
    app.get('/typed', { schema: { response: { 200: z.object({}) } } }, async () => {
      throw new SvcError('SVC_CONFLICT', 'already there');
    });
    app.get('/bad-response', { schema: { response: { 200: z.object({ n: z.number() }) } } }, async () => ({ n: 'x' }) as unknown as { n: number });
    await app.ready();
  });
  afterAll(async () => app.close());

  it.each([
    ['malformed JSON', { 'content-type': 'application/json' }, '{"name": ', 400, 'SVC_MALFORMED_JSON'],
    ['prototype poisoning', { 'content-type': 'application/json' }, '{"name":"a","__proto__":{"x":1}}', 400, 'SVC_MALFORMED_JSON'],
    ['oversized body', { 'content-type': 'application/json' }, JSON.stringify({ name: 'x'.repeat(2000) }), 413, 'SVC_PAYLOAD_TOO_LARGE'],
    ['form body', { 'content-type': 'application/x-www-form-urlencoded' }, 'name=x', 415, 'SVC_UNSUPPORTED_MEDIA_TYPE'],
    ['schema violation', { 'content-type': 'application/json' }, '{"name":"this is far too long"}', 400, 'SVC_VALIDATION'],
    ['missing body', { 'content-type': 'application/json' }, '', 400, 'SVC_VALIDATION'],
  ])('%s → %s', async (_label, headers, payload, status, code) => {
    const res = await app.inject({ method: 'POST', url: '/echo', headers, payload });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ error: { code, message: expect.any(String) } });
  });

  it('names the failing field in validation messages', async () => {
    const res = await app.inject({ method: 'POST', url: '/echo', payload: { name: 42 } });
    expect(res.json().error.message).toMatch(/body\.name/);
  });

  it('redacts internal failures in the response but logs them', async () => {
    const res = await app.inject({ method: 'GET', url: '/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json().error.code).toBe('SVC_INTERNAL');
    expect(res.body).not.toContain('hunter2');
    expect(lines.join('')).toContain('hunter2');
    const bad = await app.inject({ method: 'GET', url: '/bad-response' });
    expect(bad.json().error.code).toBe('SVC_INTERNAL');
  });

  it('passes typed errors through and answers unknown routes with SVC_NOT_FOUND', async () => {
    const typed = await app.inject({ method: 'GET', url: '/typed' });
    expect(typed.statusCode).toBe(409);
    expect(typed.json().error).toEqual({ code: 'SVC_CONFLICT', message: 'already there' });
    const missing = await app.inject({ method: 'GET', url: '/nope' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('SVC_NOT_FOUND');
  });

  it('never logs authorization headers or cookies', async () => {
    lines.length = 0;
    await app.inject({
      method: 'GET',
      url: '/typed?invitation=svcinv_secret',
      headers: { authorization: 'Bearer svc_topsecret', cookie: 'svc_console=cookiesecret', 'x-svc-console-csrf': 'csrfsecret' },
    });
    const log = lines.join('');
    expect(log).not.toContain('svc_topsecret');
    expect(log).not.toContain('cookiesecret');
    expect(log).not.toContain('csrfsecret');
    expect(log).not.toContain('svcinv_secret');
  });
});

// The one access-log line per request: its fields, credentials kept out of it, and the request's level
// honoured (the line is written by a logger without path redaction, so this pins what it may contain).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp, type HttpApp } from '../../src/core/http/create-http-app.js';
import { createLogger } from '../../src/core/logger.js';
import { PLATFORM_CSRF_HEADER } from '../../src/core/platform-credentials-names.js';

async function appLogging(level: string): Promise<{ app: HttpApp; lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) });
  const app = await createHttpApp({ logger: createLogger({ level, destination: sink }), bodyLimitBytes: 1024, trustProxy: false, version: 'test' });
  app.get('/things', { schema: { response: { 200: z.object({ ok: z.boolean() }) } } }, async () => ({ ok: true }));
  app.get('/quiet', { logLevel: 'warn', schema: { response: { 200: z.object({ ok: z.boolean() }) } } }, async () => ({ ok: true }));
  app.get('/boom', { schema: { response: { 200: z.object({}) } } }, async () => {
    throw Object.assign(new Error('failed'), { token: 'svc_secret_in_error' });
  });
  await app.ready();
  return { app, lines };
}

const secretHeaders = { authorization: 'Bearer svc_secret_token', cookie: 'svc_session=secret_session', [PLATFORM_CSRF_HEADER]: 'secret_csrf' };

describe('request log line', () => {
  let info: Awaited<ReturnType<typeof appLogging>>;
  beforeAll(async () => {
    info = await appLogging('info');
  });
  afterAll(async () => info.app.close());

  it('is one line with the request id, method, URL (credential query values blanked), address, status and time', async () => {
    info.lines.length = 0;
    const res = await info.app.inject({ method: 'GET', url: '/things?token=svc_secret_query&page=2', headers: secretHeaders });
    expect(res.statusCode).toBe(200);
    expect(info.lines).toHaveLength(1);
    const line = info.lines[0]!;
    expect(line).toMatchObject({
      level: 30,
      service: 'svc-platform',
      reqId: expect.any(String),
      req: { method: 'GET', url: '/things?token=[redacted]&page=2', remoteAddress: '127.0.0.1' },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
      msg: 'request completed',
    });
    expect(Object.keys(line.req as object).sort()).toEqual(['method', 'remoteAddress', 'url']);
    expect(Object.keys(line.res as object)).toEqual(['statusCode']);
    expect(JSON.stringify(info.lines)).not.toMatch(/secret/);
  });

  it('keeps credentials out of the error line too', async () => {
    info.lines.length = 0;
    const res = await info.app.inject({ method: 'GET', url: '/boom?token=svc_secret_query', headers: secretHeaders });
    expect(res.statusCode).toBe(500);
    expect(info.lines.some((l) => l.msg === 'request completed' || l.msg === 'request errored')).toBe(true);
    expect(JSON.stringify(info.lines)).not.toMatch(/secret_(token|session|csrf|query)/);
    expect(JSON.stringify(info.lines)).not.toContain('svc_secret_in_error');
  });

  it("honours a route's lower log level and the logger's level", async () => {
    info.lines.length = 0;
    await info.app.inject({ method: 'GET', url: '/quiet' });
    expect(info.lines).toEqual([]);
    for (const level of ['warn', 'silent']) {
      const quiet = await appLogging(level);
      await quiet.app.inject({ method: 'GET', url: '/things' });
      expect(quiet.lines).toEqual([]);
      await quiet.app.close();
    }
  });
});

import type { InjectOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ORIGIN, register, snapshotCounts, startHarness, type Harness } from './harness.js';

describe('malformed and oversized bodies on real routes', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('rejects malformed JSON, oversized bodies, wrong types and unknown routes with clear codes and writes nothing', async () => {
    h = await startHarness({ bodyLimitBytes: 4096 });
    const owner = await register(h.app, 'owner@example.com');
    const before = snapshotCounts(h);
    const json = { 'content-type': 'application/json' };
    const cases: [InjectOptions & { method: string; url: string }, number, string][] = [
      [{ method: 'POST', url: '/api/projects', headers: { ...owner.headers(), ...json }, payload: '{"name": "x", ' }, 400, 'SVC_MALFORMED_JSON'],
      [
        { method: 'POST', url: '/api/projects', headers: { ...owner.headers(), ...json }, payload: JSON.stringify({ name: 'x'.repeat(10_000) }) },
        413,
        'SVC_PAYLOAD_TOO_LARGE',
      ],
      [
        {
          method: 'POST',
          url: '/__svc/auth/register',
          headers: { origin: ORIGIN, ...json },
          payload: JSON.stringify({ email: 'a@b.co', password: 'p'.repeat(5000) }),
        },
        413,
        'SVC_PAYLOAD_TOO_LARGE',
      ],
      [{ method: 'POST', url: '/__svc/auth/register', headers: { origin: ORIGIN, ...json }, payload: '[]' }, 400, 'SVC_VALIDATION'],
      [
        { method: 'POST', url: '/__svc/auth/register', headers: { origin: ORIGIN }, payload: { email: 'not-an-email', password: 'correct horse battery' } },
        400,
        'SVC_VALIDATION',
      ],
      [{ method: 'POST', url: '/__svc/auth/register', headers: { origin: ORIGIN }, payload: { email: 'a@b.co', password: 'short' } }, 400, 'SVC_VALIDATION'],
      [
        { method: 'POST', url: '/api/tokens', headers: { ...owner.headers(), 'content-type': 'text/plain' }, payload: 'hello' },
        415,
        'SVC_UNSUPPORTED_MEDIA_TYPE',
      ],
      [{ method: 'GET', url: '/api/nothing-here' }, 404, 'SVC_NOT_FOUND'],
    ];
    for (const [request, status, code] of cases) {
      const res = await h.app.inject(request);
      expect(res.statusCode, `${request.method} ${request.url}`).toBe(status);
      expect(res.json(), `${request.method} ${request.url}`).toEqual({ error: { code, message: expect.any(String) } });
    }
    expect(snapshotCounts(h)).toEqual(before);
  });
});

import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/clock.js';
import { checkHealth } from '../../runner/health-check.js';

let server: Server | null = null;
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(null)));
  server = null;
});

/** A real loopback server answering the given status sequence (last one repeats). */
async function serve(statuses: number[]): Promise<{ port: number; paths: string[] }> {
  const paths: string[] = [];
  server = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(statuses[Math.min(paths.length - 1, statuses.length - 1)]!);
    res.end();
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, paths };
}

describe('checkHealth', () => {
  it('polls the health path until it answers 2xx', async () => {
    const { port, paths } = await serve([503, 500, 204]);
    const result = await checkHealth({ host: '127.0.0.1', port, path: '/healthz', timeoutMs: 5_000, intervalMs: 10 });
    expect(result).toMatchObject({ ok: true, status: 204, attempts: 3 });
    expect(paths).toEqual(['/healthz', '/healthz', '/healthz']);
  });

  it('times out with the last status when the route keeps failing', async () => {
    const { port } = await serve([500]);
    const result = await checkHealth({ host: '127.0.0.1', port, path: '/healthz', timeoutMs: 300, intervalMs: 20 });
    expect(result).toMatchObject({ ok: false, reason: 'timeout', lastStatus: 500 });
    expect(result.elapsedMs).toBeGreaterThanOrEqual(300);
    expect(result.elapsedMs).toBeLessThan(2_000);
  });

  it('does not follow redirects (a 3xx is not healthy)', async () => {
    const { port } = await serve([302]);
    const result = await checkHealth({ host: '127.0.0.1', port, timeoutMs: 100, intervalMs: 20 });
    expect(result).toMatchObject({ ok: false, reason: 'timeout', lastStatus: 302 });
  });

  it('uses the passed clock and fetch: connection errors until the deadline', async () => {
    const clock = manualClock(0);
    let calls = 0;
    const result = await checkHealth({
      host: '127.0.0.1',
      port: 1,
      timeoutMs: 1_000,
      intervalMs: 250,
      clock,
      sleep: async (ms) => clock.advance(ms),
      fetch: async () => {
        calls++;
        throw new Error('connect ECONNREFUSED');
      },
    });
    expect(result).toEqual({ ok: false, reason: 'timeout', attempts: 4, elapsedMs: 1_000, lastStatus: null, lastError: 'connect ECONNREFUSED' });
    expect(calls).toBe(4);
  });

  it('stops at once when the app exits or the caller aborts', async () => {
    const exited = Promise.resolve({ code: 1 });
    const failing = async (): Promise<Response> => {
      throw new Error('refused');
    };
    expect(await checkHealth({ host: '127.0.0.1', port: 1, timeoutMs: 60_000, exited, fetch: failing })).toMatchObject({ ok: false, reason: 'exited' });
    const controller = new AbortController();
    controller.abort();
    expect(await checkHealth({ host: '127.0.0.1', port: 1, timeoutMs: 60_000, signal: controller.signal, fetch: failing })).toMatchObject({
      ok: false,
      reason: 'aborted',
      attempts: 0,
    });
  });
});

// Scale: commit latency with 0 vs 1,000 live subscribers (same run), and 10,000 live subscribers.
// Subscribers are raw TCP SSE connections from a child process; the server is the real runtime.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alternatingCommitLatency } from './support/commit-latency.js';
import { percentile, startLoadClient, type LoadClient } from './support/load-client-process.js';
import { startTasksServer, type TasksServer } from './support/start-tasks-server.js';

let dir: string;
let app: TasksServer;
let load: LoadClient;
const livePaths = [1, 2, 3, 4].map((limit) => `/__svc/live/tasks/latest?args=${encodeURIComponent(JSON.stringify({ limit }))}`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-live-scale-'));
  app = await startTasksServer(join(dir, 'app.db'), { live: { maxConnections: 20_000 } });
  load = startLoadClient();
});
afterAll(async () => {
  await load?.send({ type: 'close' }).catch(() => undefined);
  await load?.stop();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('live scale', () => {
  it('commit latency does not grow with 1,000 live subscribers (fan-out runs after the commit returns)', { timeout: 60_000 }, async () => {
    const quiet = await startTasksServer(join(dir, 'quiet.db'));
    try {
      const opened = await load.send<'opened'>({ type: 'open', port: app.port, paths: livePaths, count: 1000 });
      expect(opened).toMatchObject({ count: 1000, failed: 0 });
      const hub = app.live.hubFor(app.handler.engine);
      expect(hub.stats()).toMatchObject({ connections: 1000, queries: 4 });
      await alternatingCommitLatency(quiet.handler.engine, app.handler.engine, 30); // warm up
      const broadcastsBefore = hub.stats().broadcasts;
      const { quiet: without, busy: withSubs } = await alternatingCommitLatency(quiet.handler.engine, app.handler.engine, 300);
      // The subscribers really were fed during the run (one rerun + broadcast per key per commit).
      await expect.poll(() => hub.stats().broadcasts - broadcastsBefore).toBeGreaterThanOrEqual(300 * 4 * 0.9);
      const p50 = [percentile(without, 50), percentile(withSubs, 50)];
      const p99 = [percentile(without, 99), percentile(withSubs, 99)];
      console.log(
        `commit latency ms: 0 subscribers p50 ${p50[0]!.toFixed(3)} p99 ${p99[0]!.toFixed(3)}; 1000 subscribers p50 ${p50[1]!.toFixed(3)} p99 ${p99[1]!.toFixed(3)}`,
      );
      expect(p50[1]!).toBeLessThan(p50[0]! * 1.5 + 0.5);
    } finally {
      await quiet.close();
    }
    const hub = app.live.hubFor(app.handler.engine);
    const http = await load.send<'mutated'>({
      type: 'mutate',
      port: app.port,
      path: '/__svc/mutation/tasks/add',
      body: JSON.stringify({ text: 'h', list: 'lat' }),
      count: 100,
    });
    console.log(
      `HTTP mutation round trip ms with 1000 subscribers: p50 ${percentile(http.latencies, 50).toFixed(2)} p99 ${percentile(http.latencies, 99).toFixed(2)}`,
    );
    await load.send({ type: 'close' });
    await expect.poll(() => hub.stats().connections, { timeout: 10_000 }).toBe(0);
  });

  it('serves 10,000 live subscribers and delivers a write to all of them', { timeout: 90_000 }, async () => {
    await load.send({ type: 'close' });
    const opened = await load.send<'opened'>({ type: 'open', port: app.port, paths: livePaths, count: 10_000, batch: 500 });
    expect(opened).toMatchObject({ count: 10_000, failed: 0 });
    const hub = app.live.hubFor(app.handler.engine);
    expect(hub.stats()).toMatchObject({ connections: 10_000, queries: 4 });
    for (let round = 0; round < 3; round++) {
      const r = await load.send<'round'>({
        type: 'round',
        port: app.port,
        method: 'POST',
        path: '/__svc/mutation/tasks/add',
        body: JSON.stringify({ text: `r${round}`, list: 'k' }),
        timeoutMs: 10_000,
      });
      expect(r.status).toBe(200);
      expect(r.missing).toBe(0);
      console.log(
        `10k round ${round}: p50 ${percentile(r.latencies, 50).toFixed(1)} ms, p99 ${percentile(r.latencies, 99).toFixed(1)} ms, max ${Math.max(...r.latencies).toFixed(1)} ms`,
      );
    }
    await load.send({ type: 'close' });
    await expect.poll(() => hub.stats().connections, { timeout: 20_000 }).toBe(0);
  });
});

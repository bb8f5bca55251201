// B3: write → SSE receipt latency with 1,000 and 10,000 live subscribers spread over 4 distinct
// queries, against a raw node:http SSE broadcast measured in the same run with the same client.
// Also: commit latency with 0 vs 1,000 subscribers (alternating, same run).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { alternatingCommitLatency } from '../runtime/live/support/commit-latency.js';
import { percentile, startLoadClient, type LoadClient } from '../runtime/live/support/load-client-process.js';
import { startTasksServer } from '../runtime/live/support/start-tasks-server.js';
import type { BenchResult } from './bench-types.js';

const LIVE_PATHS = [5, 10, 20, 40].map((limit) => `/__svc/live/tasks/latest?args=${encodeURIComponent(JSON.stringify({ limit }))}`);

interface Measured {
  p50: number;
  p99: number;
  delivered: number;
}

/** Run `rounds` writes and collect every subscriber's receipt latency. */
async function measure(load: LoadClient, port: number, write: { path: string; body: string }, rounds: number): Promise<Measured> {
  const all: number[] = [];
  let missing = 0;
  for (let i = 0; i < rounds; i++) {
    const r = await load.send<'round'>({ type: 'round', port, method: 'POST', path: write.path, body: write.body.replace('#', String(i)), timeoutMs: 10_000 });
    if (r.status !== 200) throw new Error(`write failed with HTTP ${r.status}`);
    all.push(...r.latencies);
    missing += r.missing;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { p50: percentile(all, 50), p99: percentile(all, 99), delivered: all.length / (all.length + missing) };
}

/** The baseline: a minimal node:http SSE server that writes one pre-encoded frame to every response. */
async function startRawSse(): Promise<{ port: number; close(): Promise<void> }> {
  const clients = new Set<ServerResponse>();
  let revision = 0;
  const payload = JSON.stringify(Array.from({ length: 20 }, (_, i) => `task ${i}`));
  const server = createServer({ noDelay: true }, (req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(`id: ${revision}\nevent: snapshot\ndata: {"value":${payload},"revision":${revision}}\n\n`);
      clients.add(res);
      res.on('close', () => clients.delete(res));
      return;
    }
    req.resume();
    req.on('end', () => {
      revision++;
      const frame = Buffer.from(`id: ${revision}\nevent: snapshot\ndata: {"value":${payload},"revision":${revision}}\n\n`);
      res.writeHead(200, { 'content-type': 'application/json' }).end(`{"revision":${revision}}`);
      for (const c of clients) c.write(frame);
    });
  });
  server.requestTimeout = 0;
  await new Promise<void>((r) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, r));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** B3 benchmark rows. */
export default async function b3(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-b3-'));
  const load = startLoadClient();
  const app = await startTasksServer(join(dir, 'app.db'), { live: { maxConnections: 20_000 } });
  const quiet = await startTasksServer(join(dir, 'quiet.db'));
  const raw = await startRawSse();
  const results: BenchResult[] = [];
  const write = { path: '/__svc/mutation/tasks/add', body: JSON.stringify({ text: 'task #', list: 'b3' }) };
  try {
    for (let i = 0; i < 40; i++) app.handler.engine.runMutation('tasks/add', { text: `seed ${i}`, list: 'b3' }, null);
    let inMemory: Measured | null = null;
    for (const [count, target, rounds] of [
      [1000, 50, 30],
      [10_000, 250, 10],
    ] as const) {
      await load.send({ type: 'open', port: app.port, paths: LIVE_PATHS, count, batch: 500 });
      const ours = await measure(load, app.port, write, rounds);
      if (count === 1000) {
        // Same pipeline with the database in memory: separates the live engine from fsync latency of the commit.
        const memory = await startTasksServer(':memory:');
        try {
          await load.send({ type: 'close' });
          await load.send({ type: 'open', port: memory.port, paths: LIVE_PATHS, count, batch: 500 });
          inMemory = await measure(load, memory.port, write, rounds);
        } finally {
          await load.send({ type: 'close' });
          await memory.close();
        }
        await load.send({ type: 'open', port: app.port, paths: LIVE_PATHS, count, batch: 500 });
        const commit = await alternatingCommitLatency(quiet.handler.engine, app.handler.engine, 200);
        const p0 = percentile(commit.quiet, 50);
        const p1k = percentile(commit.busy, 50);
        results.push({
          id: 'B3',
          name: 'commit latency p50, 1,000 vs 0 live subscribers (lower is better)',
          value: p1k,
          unit: 'ms',
          baseline: p0,
          baselineName: 'same runtime, 0 subscribers',
          ratio: p1k / p0,
          target: '<= 1.5x',
          pass: p1k <= p0 * 1.5 + 0.5,
        });
      }
      if (count === 10_000) {
        // HTTP mutation round trip while every commit fans out to 10,000 streams vs a runtime with none (alternating).
        const busy: number[] = [];
        const idle: number[] = [];
        const body = JSON.stringify({ text: 'm', list: 'http' });
        // A separate writer process, so the subscribers' client reading 10,000 sockets does not delay it.
        const writer = startLoadClient();
        try {
          for (let i = 0; i < 4; i++) {
            busy.push(...(await writer.send<'mutated'>({ type: 'mutate', port: app.port, path: write.path, body, count: 10 })).latencies);
            idle.push(...(await writer.send<'mutated'>({ type: 'mutate', port: quiet.port, path: write.path, body, count: 10 })).latencies);
          }
        } finally {
          await writer.stop();
        }
        const [b50, i50] = [percentile(busy, 50), percentile(idle, 50)];
        results.push({
          id: 'B3',
          name: 'HTTP mutation round trip p50, 10,000 vs 0 live subscribers (informational)',
          value: b50,
          unit: 'ms',
          baseline: i50,
          baselineName: 'same runtime, 0 subscribers',
          ratio: b50 / i50,
        });
      }
      await load.send({ type: 'close' });
      await load.send({ type: 'open', port: raw.port, paths: ['/sse'], count, batch: 500 });
      const base = await measure(load, raw.port, { path: '/write', body: '{}' }, rounds);
      await load.send({ type: 'close' });
      const label = count.toLocaleString('en-US');
      if (count === 1000 && inMemory) {
        results.push({
          id: 'B3',
          name: 'write → SSE receipt p99, 1,000 subscribers, database in memory (no fsync; informational)',
          value: inMemory.p99,
          unit: 'ms',
          baseline: base.p99,
          baselineName: 'raw node:http SSE broadcast p99',
          ratio: inMemory.p99 / base.p99,
        });
      }
      results.push({
        id: 'B3',
        name: `write → SSE receipt p99, ${label} subscribers / 4 queries (lower is better)`,
        value: ours.p99,
        unit: 'ms',
        baseline: base.p99,
        baselineName: 'raw node:http SSE broadcast p99',
        ratio: ours.p99 / base.p99,
        target: `<= ${target} ms`,
        pass: ours.p99 <= target && ours.delivered === 1,
      });
      results.push({
        id: 'B3',
        name: `write → SSE receipt p50, ${label} subscribers (lower is better)`,
        value: ours.p50,
        unit: 'ms',
        baseline: base.p50,
        baselineName: 'raw node:http SSE broadcast p50',
        ratio: ours.p50 / base.p50,
      });
      results.push({
        id: 'B3',
        name: `delivered, ${label} subscribers (higher is better)`,
        value: ours.delivered * 100,
        unit: '%',
        baseline: base.delivered * 100,
        baselineName: 'raw node:http SSE broadcast',
        ratio: base.delivered / ours.delivered,
        target: '100 %',
        pass: ours.delivered === 1,
      });
    }
  } finally {
    await load.send({ type: 'close' }).catch(() => undefined);
    await load.stop();
    await raw.close();
    await quiet.close();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

// Allow `node --import tsx test/bench/b3-live.bench.ts` on its own.
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  console.table(await b3());
}

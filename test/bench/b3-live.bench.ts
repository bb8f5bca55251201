// B3: write → SSE receipt latency with 1,000 and 10,000 live subscribers spread over 4 distinct queries,
// against a raw node:http SSE broadcast (its own process, b3-raw-sse.ts) read by the same kind of client.
// Both sides keep their subscribers open for the whole run (one load-client process each), so rounds can
// interleave without reopening: each round is a few writes on ours and as many on the baseline, order
// swapped every round; rows report the median of the per-round ratios with min–max (rounds.ts).
// Also: the same with the database in memory, against a raw broadcast that first commits a bare durable
// INSERT (the floor for a write that must be durable before it is announced), server CPU per write, and
// commit latency with 0 vs 1,000 subscribers.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { alternatingCommitLatency } from '../runtime/live/support/commit-latency.js';
import { percentile, startLoadClient, type LoadClient } from '../runtime/live/support/load-client-process.js';
import { startTasksServer } from '../runtime/live/support/start-tasks-server.js';
import type { BenchResult } from './bench-types.js';
import { pairedRow, type RatioTarget } from './paired-row.js';
import { interleave, roundsFrom, type Paired } from './rounds.js';

const LIVE_PATHS = [5, 10, 20, 40].map((limit) => `/__svc/live/tasks/latest?args=${encodeURIComponent(JSON.stringify({ limit }))}`);
const ROUNDS = roundsFrom(process.env.SVC_B3_ROUNDS, 6);
// Writes per side per round with 1,000 subscribers (each write yields 1,000 latencies).
const WRITES_1K = 12;
const WRITE = { path: '/__svc/mutation/tasks/add', body: JSON.stringify({ text: 'task #', list: 'b3' }) };
const RAW_WRITE = { path: '/write', body: '{}' };

interface Measured {
  p50: number;
  p99: number;
  delivered: number;
  /** Server CPU milliseconds per write. */
  cpu: number;
}

/** A group of subscribers held open by one load-client process, and the server they read. */
interface Side {
  load: LoadClient;
  port: number;
  write: { path: string; body: string };
  cpuSeconds: () => Promise<number>;
}

/** Run `writes` writes and collect every subscriber's receipt latency. */
async function measure(side: Side, writes: number): Promise<Measured> {
  const all: number[] = [];
  let missing = 0;
  const before = await side.cpuSeconds();
  for (let i = 0; i < writes; i++) {
    const r = await side.load.send<'round'>({
      type: 'round',
      port: side.port,
      method: 'POST',
      path: side.write.path,
      body: side.write.body.replace('#', String(i)),
      timeoutMs: 10_000,
    });
    if (r.status !== 200) throw new Error(`write failed with HTTP ${r.status}`);
    all.push(...r.latencies);
    missing += r.missing;
    await sleep(20);
  }
  const cpu = (((await side.cpuSeconds()) - before) * 1000) / writes;
  return { p50: percentile(all, 50), p99: percentile(all, 99), delivered: all.length / (all.length + missing), cpu };
}

/** Interleaved rounds of `writes` writes on each side; every round's measurements are kept. */
async function rounds(ours: Side, baseline: Side, writes: number, count = ROUNDS): Promise<{ ours: Measured[]; baseline: Measured[] }> {
  const kept = { ours: [] as Measured[], baseline: [] as Measured[] };
  const take = async (side: Side, into: Measured[]): Promise<number> => {
    const m = await measure(side, writes);
    into.push(m);
    return m.p99;
  };
  await interleave(
    count,
    () => take(ours, kept.ours),
    () => take(baseline, kept.baseline),
  );
  return kept;
}

function pick(m: { ours: Measured[]; baseline: Measured[] }, field: keyof Measured): Paired {
  return { ours: m.ours.map((x) => x[field]), baseline: m.baseline.map((x) => x[field]) };
}

function row(name: string, paired: Paired, unit: string, baselineName: string, target?: RatioTarget): BenchResult {
  return pairedRow('B3', name, paired, unit, baselineName, target);
}

/** Whether every subscriber got every write, on ours and on the baseline (all rounds). */
function deliveredRow(label: string, m: { ours: Measured[]; baseline: Measured[] }): BenchResult {
  const ours = Math.min(...m.ours.map((x) => x.delivered));
  return {
    id: 'B3',
    name: `delivered, ${label} subscribers (higher is better)`,
    value: ours * 100,
    unit: '%',
    baseline: Math.min(...m.baseline.map((x) => x.delivered)) * 100,
    baselineName: 'raw node:http SSE broadcast',
    ratio: ours,
    target: '100 %',
    pass: ours === 1,
  };
}

/** The raw baseline server in its own process (with `dbPath`: a durable INSERT before each broadcast). */
async function startRawSse(dbPath?: string): Promise<{ port: number; cpuSeconds(): Promise<number>; stop(): Promise<void> }> {
  const child = fork(join(import.meta.dirname, 'b3-raw-sse.ts'), dbPath ? [dbPath] : [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`raw SSE server exited (${code})`)));
  });
  return {
    port,
    // Asked over IPC: the child's own process.cpuUsage(), in microseconds, not /proc's 10 ms ticks.
    cpuSeconds: () =>
      new Promise<number>((resolve) => {
        child.once('message', (m: { cpuSeconds: number }) => resolve(m.cpuSeconds));
        child.send('cpu');
      }),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function ownCpuSeconds(): Promise<number> {
  const usage = process.cpuUsage();
  return Promise.resolve((usage.user + usage.system) / 1e6);
}

async function open(side: Side, paths: string[], count: number): Promise<void> {
  const opened = await side.load.send<'opened'>({ type: 'open', port: side.port, paths, count, batch: 500 });
  if (opened.failed > 0) throw new Error(`${opened.failed} of ${count} subscribers failed to open`);
}

const lowerIsBetter = (limit: number) => ({ text: `<= ${limit}x`, pass: (ratio: number) => ratio <= limit });

/** B3 benchmark rows. */
export default async function b3(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-b3-'));
  const app = await startTasksServer(join(dir, 'app.db'), { live: { maxConnections: 20_000 } });
  const memory = await startTasksServer(':memory:');
  const quiet = await startTasksServer(join(dir, 'quiet.db'));
  const raw = await startRawSse();
  const rawDurable = await startRawSse(join(dir, 'raw.db'));
  const loads = [startLoadClient(), startLoadClient(), startLoadClient(), startLoadClient()] as const;
  const ours: Side = { load: loads[0], port: app.port, write: WRITE, cpuSeconds: ownCpuSeconds };
  const inMemory: Side = { load: loads[1], port: memory.port, write: WRITE, cpuSeconds: ownCpuSeconds };
  const base: Side = { load: loads[2], port: raw.port, write: RAW_WRITE, cpuSeconds: raw.cpuSeconds };
  const durableBase: Side = { load: loads[3], port: rawDurable.port, write: RAW_WRITE, cpuSeconds: rawDurable.cpuSeconds };
  const results: BenchResult[] = [];
  const rawName = 'raw node:http SSE broadcast';
  try {
    for (const server of [app, memory]) for (let i = 0; i < 40; i++) server.handler.engine.runMutation('tasks/add', { text: `seed ${i}`, list: 'b3' }, null);
    await open(ours, LIVE_PATHS, 1000);
    await open(inMemory, LIVE_PATHS, 1000);
    await open(base, ['/sse'], 1000);
    await open(durableBase, ['/sse'], 1000);
    // Warm-up (JIT, socket buffers) on every side, not measured.
    for (const side of [ours, inMemory, base, durableBase]) await measure(side, 3);

    const durable = await rounds(ours, base, WRITES_1K);
    const delivered = Math.min(...durable.ours.map((m) => m.delivered));
    results.push(
      row('write → SSE receipt p99, 1,000 subscribers / 4 queries ÷ raw (durable commit; lower is better)', pick(durable, 'p99'), 'ms', `${rawName} p99`, {
        text: '<= 1.2x',
        pass: (ratio) => ratio <= 1.2 && delivered === 1,
      }),
      row('write → SSE receipt p50, 1,000 subscribers ÷ raw (lower is better)', pick(durable, 'p50'), 'ms', `${rawName} p50`),
      row('server CPU per write, 1,000 subscribers ÷ raw (commit + reruns + fan-out; informational)', pick(durable, 'cpu'), 'ms', `${rawName}, its process`),
    );
    const mem = await rounds(inMemory, base, WRITES_1K);
    results.push(
      row('write → SSE receipt p99, 1,000 subscribers, database in memory ÷ raw (no fsync; informational)', pick(mem, 'p99'), 'ms', `${rawName} p99`),
    );
    // The floor for a durable write: the raw broadcast preceded by one bare INSERT with the same pragmas.
    const floor = await rounds(ours, durableBase, WRITES_1K);
    results.push(
      row(
        'write → SSE receipt p99, 1,000 subscribers ÷ raw broadcast after a bare durable INSERT (informational)',
        pick(floor, 'p99'),
        'ms',
        `${rawName} + INSERT (WAL, FULL) p99`,
      ),
      row(
        'write → SSE receipt p50, 1,000 subscribers ÷ raw broadcast after a bare durable INSERT (informational)',
        pick(floor, 'p50'),
        'ms',
        `${rawName} + INSERT (WAL, FULL) p50`,
      ),
    );
    results.push(deliveredRow('1,000', durable));

    // Commit latency with 1,000 subscribers vs none (only the committing call is timed).
    const commit: Paired = { ours: [], baseline: [] };
    await alternatingCommitLatency(quiet.handler.engine, app.handler.engine, 10);
    for (let round = 0; round < ROUNDS; round++) {
      const { quiet: q, busy: b } = await alternatingCommitLatency(quiet.handler.engine, app.handler.engine, 40);
      commit.ours.push(percentile(b, 50));
      commit.baseline.push(percentile(q, 50));
    }
    results.push(row('commit latency p50, 1,000 vs 0 live subscribers (lower is better)', commit, 'ms', 'same runtime, 0 subscribers', lowerIsBetter(1.5)));
    await Promise.all(loads.map((l) => l.send({ type: 'close' })));

    // 10,000 subscribers: fewer writes per round (each fans out ten times as far).
    await open(ours, LIVE_PATHS, 10_000);
    await open(base, ['/sse'], 10_000);
    await measure(ours, 1);
    await measure(base, 1);
    const wide = await rounds(ours, base, 3, Math.max(5, Math.ceil(ROUNDS / 2)));
    // HTTP mutation round trip while every commit fans out to 10,000 streams vs a runtime with none, from a
    // separate writer process so the subscribers' client reading 10,000 sockets does not delay it.
    const writer = startLoadClient();
    const roundTrip = await (async () => {
      try {
        const body = JSON.stringify({ text: 'm', list: 'http' });
        const mutate = async (port: number): Promise<number> =>
          percentile((await writer.send<'mutated'>({ type: 'mutate', port, path: WRITE.path, body, count: 10 })).latencies, 50);
        return await interleave(
          Math.max(5, Math.ceil(ROUNDS / 2)),
          () => mutate(app.port),
          () => mutate(quiet.port),
        );
      } finally {
        await writer.stop();
      }
    })();
    results.push(
      row('write → SSE receipt p99, 10,000 subscribers / 4 queries ÷ raw (informational)', pick(wide, 'p99'), 'ms', `${rawName} p99`),
      row('write → SSE receipt p50, 10,000 subscribers ÷ raw (informational)', pick(wide, 'p50'), 'ms', `${rawName} p50`),
      row('HTTP mutation round trip p50, 10,000 vs 0 live subscribers (informational)', roundTrip, 'ms', 'same runtime, 0 subscribers'),
      deliveredRow('10,000', wide),
    );
  } finally {
    for (const load of loads) {
      await load.send({ type: 'close' }).catch(() => undefined);
      await load.stop();
    }
    await raw.stop();
    await rawDurable.stop();
    await quiet.close();
    await memory.close();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

// Allow `node --import tsx test/bench/b3-live.bench.ts` on its own.
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  console.table(await b3());
}

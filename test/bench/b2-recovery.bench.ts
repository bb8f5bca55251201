// B2: commit latency of a small mutation with point-in-time recovery attached, vs the same runtime mutation
// without recovery, vs a bare better-sqlite3 INSERT (WAL, synchronous FULL). In each round the three take
// turns every 50 commits, in an order that alternates; rows report the median of the per-round ratios with
// their min–max. Wall time is mostly the WAL fsync, which swings with the host's disk load, so CPU per commit
// (process.cpuUsage, user + system) is reported beside it. Target: recovery <= 1.3x the bare commit.
// Also: restore time for 100,000 journal entries vs inserting the same rows with bare better-sqlite3.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openPointInTimeRecovery } from '../../src/recovery/open-point-in-time-recovery.js';
import { restorePointInTime } from '../../src/recovery/restore-point-in-time.js';
import { openApp } from '../recovery/support/recovery-backend.js';
import { openRawHost } from '../recovery/support/raw-host.js';
import type { BenchResult } from './bench-types.js';
import { interleave, median, pairedRatios, roundsFrom, type Paired, type RatioSummary } from './rounds.js';

const COMMITS = Number(process.env.SVC_B2_COMMITS ?? 600);
/** Commits per side before the sides take turns. */
const SLICE = 50;
const ROUND_COMMITS = Math.ceil(COMMITS / SLICE) * SLICE;
const WARM_UP = 200;
const ROUNDS = roundsFrom(process.env.SVC_B2_ROUNDS);
const RESTORE_ENTRIES = Number(process.env.SVC_B2_RESTORE_ENTRIES ?? 100_000);
const key = Buffer.alloc(32, 2);

type Side = 'bare' | 'runtime' | 'recovery';
const SIDES: readonly Side[] = ['bare', 'runtime', 'recovery'];

/** Wall and CPU microseconds spent on `count` commits (summed, not averaged). */
function timeCommits(count: number, commit: (i: number) => void, from: number): { wall: number; cpu: number } {
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = from; i < from + count; i++) commit(i);
  const wall = Number(process.hrtime.bigint() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  return { wall, cpu: cpu.user + cpu.system };
}

/** Let timers (the recovery exporter) run between slices of commits, as in a server. */
const yieldToTimers = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

type Samples = Record<Side, { wall: number[]; cpu: number[] }>;

async function commitLatency(dir: string): Promise<Samples> {
  const bare = new Database(join(dir, 'bare.db'));
  bare.pragma('journal_mode = WAL');
  bare.pragma('synchronous = FULL');
  bare.exec('CREATE TABLE items (id TEXT PRIMARY KEY, doc TEXT NOT NULL)');
  const insert = bare.prepare('INSERT INTO items (id, doc) VALUES (?, ?)');
  const plain = openApp(join(dir, 'runtime.db'));
  const managed = openApp(join(dir, 'recovery.db'));
  const recovery = await openPointInTimeRecovery(managed.db, { directory: join(dir, 'repo'), encryptionKey: key, exportIntervalMs: 1000 });
  let n = 0;
  const commit: Record<Side, (i: number) => void> = {
    bare: () => insert.run(`items_${n++}`, JSON.stringify({ name: `item ${n}`, qty: n, flag: false })),
    runtime: (i) => plain.engine.runMutation('items/add', { name: `item ${i}`, qty: i }, null),
    recovery: (i) => managed.engine.runMutation('items/add', { name: `item ${i}`, qty: i }, null),
  };
  const samples: Samples = { bare: { wall: [], cpu: [] }, runtime: { wall: [], cpu: [] }, recovery: { wall: [], cpu: [] } };
  try {
    // Warm-up (JIT, statement caches, WAL file growth) outside the measured rounds.
    for (const side of SIDES) {
      timeCommits(WARM_UP, commit[side], 0);
      await yieldToTimers();
    }
    let next = WARM_UP;
    for (let round = 0; round < ROUNDS; round++) {
      // Inside a round the sides take turns every SLICE commits (order reversed each turn), so a swing in the
      // host's fsync latency, which lasts longer than a slice, hits all three alike.
      const sums = { bare: { wall: 0, cpu: 0 }, runtime: { wall: 0, cpu: 0 }, recovery: { wall: 0, cpu: 0 } };
      for (let turn = 0; turn < ROUND_COMMITS / SLICE; turn++) {
        for (const side of (round + turn) % 2 === 0 ? SIDES : [...SIDES].reverse()) {
          const { wall, cpu } = timeCommits(SLICE, commit[side], next);
          sums[side].wall += wall;
          sums[side].cpu += cpu;
          await yieldToTimers();
        }
        next += SLICE;
      }
      for (const side of SIDES) {
        samples[side].wall.push(sums[side].wall / ROUND_COMMITS);
        samples[side].cpu.push(sums[side].cpu / ROUND_COMMITS);
      }
    }
    const status = await recovery.flush();
    if (status.exportedThrough !== next) throw new Error(`expected ${next} exported entries, got ${status.exportedThrough}`);
  } finally {
    await recovery.close();
    managed.db.close();
    plain.db.close();
    bare.close();
  }
  return samples;
}

async function restoreTime(dir: string): Promise<Paired> {
  // Build the entries quickly (generation is not measured: synchronous OFF).
  const host = openRawHost(join(dir, 'source.db'));
  host.sqlite.pragma('synchronous = OFF');
  host.sqlite.exec('CREATE TABLE items (id TEXT PRIMARY KEY, doc TEXT NOT NULL)');
  const recovery = await openPointInTimeRecovery(host, { directory: join(dir, 'restore-repo'), encryptionKey: key, exportIntervalMs: false });
  const insert = host.sqlite.prepare('INSERT INTO items (id, doc) VALUES (?, ?)');
  const update = host.sqlite.prepare('UPDATE items SET doc = ? WHERE id = ?');
  for (let i = 0; i < RESTORE_ENTRIES; i++) {
    // Mostly updates of a bounded key space so the table stays far below 200,000 rows.
    const id = `items_${i % 50_000}`;
    host.write(() => (i < 50_000 ? insert.run(id, JSON.stringify({ n: i })) : update.run(JSON.stringify({ n: i }), id)));
    if (i % 20_000 === 19_999) await recovery.flush();
  }
  await recovery.close();
  host.close();
  return interleave(
    ROUNDS,
    async (round) => {
      const targetPath = join(dir, `restored-${round}.db`);
      const start = performance.now();
      const result = await restorePointInTime({
        directory: join(dir, 'restore-repo'),
        encryptionKey: key,
        targetPath,
        throughSequence: RESTORE_ENTRIES,
        confirmation: 'restore point in time',
      });
      const seconds = (performance.now() - start) / 1000;
      if (result.sequence !== RESTORE_ENTRIES) throw new Error('restore did not reach the last entry');
      rmSync(targetPath, { force: true });
      return seconds;
    },
    async (round) => {
      // Baseline: the same row writes applied by bare better-sqlite3 in one transaction into a fresh file.
      const path = join(dir, `bare-replay-${round}.db`);
      const bareDb = new Database(path);
      bareDb.pragma('synchronous = FULL');
      bareDb.exec('CREATE TABLE items (id TEXT PRIMARY KEY, doc TEXT NOT NULL)');
      const upsert = bareDb.prepare('INSERT OR REPLACE INTO items (id, doc) VALUES (?, ?)');
      const start = performance.now();
      bareDb.transaction(() => {
        for (let i = 0; i < RESTORE_ENTRIES; i++) upsert.run(`items_${i % 50_000}`, JSON.stringify({ n: i }));
      })();
      bareDb.close();
      const seconds = (performance.now() - start) / 1000;
      rmSync(path, { force: true });
      return seconds;
    },
  );
}

function pair(samples: Samples, ours: Side, baseline: Side, measure: 'wall' | 'cpu'): Paired {
  return { ours: samples[ours][measure], baseline: samples[baseline][measure] };
}

function range(summary: RatioSummary): BenchResult['range'] {
  return { min: summary.min, max: summary.max, rounds: summary.rounds };
}

/** B2 rows. */
export default async function (): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-b2-'));
  try {
    const samples = await commitLatency(dir);
    const restore = await restoreTime(dir);
    const med = (side: Side, measure: 'wall' | 'cpu'): number => median(samples[side][measure]);
    const recoveryWall = pairedRatios(pair(samples, 'recovery', 'bare', 'wall'));
    const runtimeWall = pairedRatios(pair(samples, 'runtime', 'bare', 'wall'));
    const overheadWall = pairedRatios(pair(samples, 'recovery', 'runtime', 'wall'));
    const recoveryCpu = pairedRatios(pair(samples, 'recovery', 'bare', 'cpu'));
    const runtimeCpu = pairedRatios(pair(samples, 'runtime', 'bare', 'cpu'));
    const restoreRatio = pairedRatios(restore);
    return [
      {
        id: 'B2',
        name: 'commit latency, runtime mutation + recovery (mean µs/commit)',
        value: med('recovery', 'wall'),
        unit: 'µs',
        baseline: med('bare', 'wall'),
        baselineName: 'bare better-sqlite3 INSERT, WAL, sync FULL',
        ratio: recoveryWall.median,
        range: range(recoveryWall),
        target: '<= 1.3x',
        pass: recoveryWall.median <= 1.3,
      },
      {
        id: 'B2',
        name: 'commit latency, same runtime mutation without recovery',
        value: med('runtime', 'wall'),
        unit: 'µs',
        baseline: med('bare', 'wall'),
        baselineName: 'bare better-sqlite3 INSERT',
        ratio: runtimeWall.median,
        range: range(runtimeWall),
        target: '<= 1.15x',
        pass: runtimeWall.median <= 1.15,
      },
      // Recovery's own cost: the same runtime mutation with and without it (the row above shows the runtime's).
      {
        id: 'B2',
        name: 'recovery overhead on the same runtime mutation',
        value: med('recovery', 'wall'),
        unit: 'µs',
        baseline: med('runtime', 'wall'),
        baselineName: 'runtime mutation without recovery',
        ratio: overheadWall.median,
        range: range(overheadWall),
      },
      // CPU per commit does not include waiting for the fsync: the work each side adds, free of disk noise.
      {
        id: 'B2',
        name: 'CPU per commit, runtime mutation + recovery (user+sys µs)',
        value: med('recovery', 'cpu'),
        unit: 'µs',
        baseline: med('bare', 'cpu'),
        baselineName: 'bare better-sqlite3 INSERT',
        ratio: recoveryCpu.median,
        range: range(recoveryCpu),
      },
      {
        id: 'B2',
        name: 'CPU per commit, runtime mutation without recovery',
        value: med('runtime', 'cpu'),
        unit: 'µs',
        baseline: med('bare', 'cpu'),
        baselineName: 'bare better-sqlite3 INSERT',
        ratio: runtimeCpu.median,
        range: range(runtimeCpu),
      },
      {
        id: 'B2',
        name: 'throughput with recovery (commits/s; ratio = bare/value)',
        value: 1e6 / med('recovery', 'wall'),
        unit: 'commits/s',
        baseline: 1e6 / med('bare', 'wall'),
        baselineName: 'bare better-sqlite3 INSERT',
        ratio: recoveryWall.median,
        range: range(recoveryWall),
      },
      {
        id: 'B2',
        name: `restore of ${RESTORE_ENTRIES.toLocaleString('en')} entries (verify all + replay)`,
        value: median(restore.ours),
        unit: 's',
        baseline: median(restore.baseline),
        baselineName: 'bare replay of the same rows, one transaction',
        ratio: restoreRatio.median,
        range: range(restoreRatio),
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

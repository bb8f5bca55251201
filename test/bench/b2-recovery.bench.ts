// B2: commit latency and throughput of a small mutation with point-in-time recovery attached, vs the same
// runtime mutation without recovery, vs a bare better-sqlite3 INSERT (WAL, synchronous FULL) — alternating
// rounds in one run, median of rounds. Target: recovery <= 1.3x the bare commit. Also: restore time for
// 100,000 journal entries vs inserting the same rows with bare better-sqlite3.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openPointInTimeRecovery } from '../../src/recovery/open-point-in-time-recovery.js';
import { restorePointInTime } from '../../src/recovery/restore-point-in-time.js';
import { openApp } from '../recovery/support/recovery-backend.js';
import { openRawHost } from '../recovery/support/raw-host.js';
import type { BenchResult } from './bench-types.js';

const COMMITS = Number(process.env.SVC_B2_COMMITS ?? 1000);
const ROUNDS = Number(process.env.SVC_B2_ROUNDS ?? 5);
const RESTORE_ENTRIES = Number(process.env.SVC_B2_RESTORE_ENTRIES ?? 100_000);
const key = Buffer.alloc(32, 2);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Mean microseconds per commit over `count` commits. */
async function timeCommits(count: number, commit: (i: number) => void): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    commit(i);
    // Let timers (the recovery exporter) run between commits, as in a server.
    if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
  }
  return Number(process.hrtime.bigint() - start) / 1000 / count;
}

async function commitLatency(dir: string): Promise<{ bare: number; runtime: number; recovery: number }> {
  const bare = new Database(join(dir, 'bare.db'));
  bare.pragma('journal_mode = WAL');
  bare.pragma('synchronous = FULL');
  bare.exec('CREATE TABLE items (id TEXT PRIMARY KEY, doc TEXT NOT NULL)');
  const insert = bare.prepare('INSERT INTO items (id, doc) VALUES (?, ?)');
  const plain = openApp(join(dir, 'runtime.db'));
  const managed = openApp(join(dir, 'recovery.db'));
  const recovery = await openPointInTimeRecovery(managed.db, { directory: join(dir, 'repo'), encryptionKey: key, exportIntervalMs: 1000 });
  const results = { bare: [] as number[], runtime: [] as number[], recovery: [] as number[] };
  try {
    let n = 0;
    for (let round = 0; round < ROUNDS; round++) {
      results.bare.push(await timeCommits(COMMITS, () => insert.run(`items_${n++}`, JSON.stringify({ name: `item ${n}`, qty: n, flag: false }))));
      results.runtime.push(await timeCommits(COMMITS, (i) => plain.engine.runMutation('items/add', { name: `item ${i}`, qty: i }, null)));
      results.recovery.push(await timeCommits(COMMITS, (i) => managed.engine.runMutation('items/add', { name: `item ${i}`, qty: i }, null)));
    }
    const status = await recovery.flush();
    if (status.exportedThrough !== ROUNDS * COMMITS) throw new Error(`expected ${ROUNDS * COMMITS} exported entries, got ${status.exportedThrough}`);
  } finally {
    await recovery.close();
    managed.db.close();
    plain.db.close();
    bare.close();
  }
  return { bare: median(results.bare), runtime: median(results.runtime), recovery: median(results.recovery) };
}

async function restoreTime(dir: string): Promise<{ restore: number; bare: number }> {
  // Build 100,000 entries quickly (generation is not measured: synchronous OFF).
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
  const start = performance.now();
  const result = await restorePointInTime({
    directory: join(dir, 'restore-repo'),
    encryptionKey: key,
    targetPath: join(dir, 'restored.db'),
    throughSequence: RESTORE_ENTRIES,
    confirmation: 'restore point in time',
  });
  const restore = (performance.now() - start) / 1000;
  if (result.sequence !== RESTORE_ENTRIES) throw new Error('restore did not reach the last entry');
  // Baseline: the same 100,000 row writes applied by bare better-sqlite3 in one transaction into a fresh file.
  const bareDb = new Database(join(dir, 'bare-replay.db'));
  bareDb.pragma('synchronous = FULL');
  bareDb.exec('CREATE TABLE items (id TEXT PRIMARY KEY, doc TEXT NOT NULL)');
  const upsert = bareDb.prepare('INSERT OR REPLACE INTO items (id, doc) VALUES (?, ?)');
  const bareStart = performance.now();
  bareDb.transaction(() => {
    for (let i = 0; i < RESTORE_ENTRIES; i++) upsert.run(`items_${i % 50_000}`, JSON.stringify({ n: i }));
  })();
  bareDb.close();
  return { restore, bare: (performance.now() - bareStart) / 1000 };
}

/** B2 rows. */
export default async function (): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-b2-'));
  try {
    const latency = await commitLatency(dir);
    const restore = await restoreTime(dir);
    const ratio = latency.recovery / latency.bare;
    return [
      {
        id: 'B2',
        name: 'commit latency, runtime mutation + recovery (mean µs/commit)',
        value: latency.recovery,
        unit: 'µs',
        baseline: latency.bare,
        baselineName: 'bare better-sqlite3 INSERT, WAL, sync FULL',
        ratio,
        target: '<= 1.3x',
        pass: ratio <= 1.3,
      },
      {
        id: 'B2',
        name: 'commit latency, same runtime mutation without recovery',
        value: latency.runtime,
        unit: 'µs',
        baseline: latency.bare,
        baselineName: 'bare better-sqlite3 INSERT',
        ratio: latency.runtime / latency.bare,
      },
      // Recovery's own cost: the same runtime mutation with and without it (the row above shows the runtime's).
      {
        id: 'B2',
        name: 'recovery overhead on the same runtime mutation',
        value: latency.recovery,
        unit: 'µs',
        baseline: latency.runtime,
        baselineName: 'runtime mutation without recovery',
        ratio: latency.recovery / latency.runtime,
        target: '<= 1.3x (informative)',
        pass: latency.recovery / latency.runtime <= 1.3,
      },
      {
        id: 'B2',
        name: 'throughput with recovery (commits/s; ratio = bare/value)',
        value: 1e6 / latency.recovery,
        unit: 'commits/s',
        baseline: 1e6 / latency.bare,
        baselineName: 'bare better-sqlite3 INSERT',
        ratio,
      },
      {
        id: 'B2',
        name: `restore of ${RESTORE_ENTRIES.toLocaleString('en')} entries (verify all + replay)`,
        value: restore.restore,
        unit: 's',
        baseline: restore.bare,
        baselineName: 'bare replay of the same rows, one transaction',
        ratio: restore.restore / restore.bare,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

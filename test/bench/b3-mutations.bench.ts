// B3 (mutations): commit throughput of runtime mutations (validated insert, revision bump, change log,
// JSON output check, one immediate transaction each) against a bare better-sqlite3 INSERT in autocommit
// mode, both on a file with the same pragmas (WAL, synchronous FULL), measured in the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createEngine, createFetchHandler, defineBackend, defineSchema, defineTable, functionsFor, openDatabase, v } from '../../src/runtime/index.js';
import type { BenchResult } from './bench-types.js';

const schema = defineSchema({ tasks: defineTable({ text: v.string({ max: 200 }), done: v.boolean() }).index('by_done', ['done']) });
const { mutation } = functionsFor(schema);
const backend = defineBackend({
  schema,
  functions: { tasks: { add: mutation({ args: { text: v.string() }, handler: (ctx, args) => ctx.db.insert('tasks', { text: args.text, done: false }) }) } },
});

const ROUND_MS = 400;
const ROUNDS = 12;

let counter = 0;

/** Run `step` repeatedly for about `ms` milliseconds; returns operations per second. */
async function rate(ms: number, step: (i: number) => unknown | Promise<unknown>): Promise<number> {
  let next = counter;
  for (const end = next + 20; next < end; next++) await step(next);
  const start = performance.now();
  let count = 0;
  while (performance.now() - start < ms) {
    for (let k = 0; k < 10; k++, count++) await step(next++);
  }
  counter = next;
  return count / ((performance.now() - start) / 1000);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** B3 mutation-throughput rows (alternating rounds per contender; medians reported). */
export default async function b3Mutations(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-b3m-'));
  const bare = new Database(join(dir, 'bare.db'));
  const db = openDatabase(schema, { path: join(dir, 'runtime.db') });
  try {
    bare.pragma('journal_mode = WAL');
    bare.pragma('synchronous = FULL');
    bare.exec('CREATE TABLE tasks (_id TEXT PRIMARY KEY, _creationTime REAL, _version INTEGER, _ownerId TEXT, doc TEXT) STRICT');
    const insert = bare.prepare('INSERT INTO tasks VALUES (?, ?, 1, NULL, ?)');
    const engine = createEngine(backend, db);
    const handler = createFetchHandler(backend, db, { engine });
    const rates = { bare: [] as number[], engine: [] as number[], http: [] as number[] };
    // Short alternating rounds so every contender sees the same disk and CPU conditions (shared machine).
    for (let round = 0; round < ROUNDS; round++) {
      rates.bare.push(await rate(ROUND_MS, (i) => insert.run(`t${i}`, Date.now(), JSON.stringify({ text: `task ${i}`, done: false }))));
      rates.engine.push(await rate(ROUND_MS, (i) => engine.runMutation('tasks/add', { text: `task ${i}` }, null)));
      rates.http.push(
        await rate(ROUND_MS, async (i) => {
          const response = await handler(new Request('http://app.localhost/__svc/mutation/tasks/add', { method: 'POST', body: `{"text":"task ${i}"}` }));
          if (response.status !== 200) throw new Error(`mutation failed: ${response.status}`);
          await response.text();
        }),
      );
    }
    const bareRate = median(rates.bare);
    const row = (name: string, value: number, min: number): BenchResult => ({
      id: 'B3',
      name: `${name} (ratio = runtime/bare, higher is better)`,
      value,
      unit: 'commits/s',
      baseline: bareRate,
      baselineName: 'bare better-sqlite3 INSERT, same pragmas',
      ratio: value / bareRate,
      target: `>= ${min}x`,
      pass: value / bareRate >= min,
    });
    // CPU-only view (no fsync): in-memory databases on both sides show the runtime's own per-commit cost.
    const memBare = new Database(':memory:');
    memBare.exec('CREATE TABLE tasks (_id TEXT PRIMARY KEY, _creationTime REAL, _version INTEGER, _ownerId TEXT, doc TEXT) STRICT');
    const memInsert = memBare.prepare('INSERT INTO tasks VALUES (?, ?, 1, NULL, ?)');
    const memDb = openDatabase(schema);
    const memEngine = createEngine(backend, memDb);
    const memBareRate = await rate(2000, (i) => memInsert.run(`t${i}`, Date.now(), JSON.stringify({ text: `task ${i}`, done: false })));
    const memEngineRate = await rate(2000, (i) => memEngine.runMutation('tasks/add', { text: `task ${i}` }, null));
    memBare.close();
    memDb.close();
    return [
      row('mutation throughput, engine.runMutation', median(rates.engine), 0.5),
      row('mutation throughput, Fetch handler POST', median(rates.http), 0.4),
      {
        id: 'B3',
        name: 'mutation throughput in memory, engine (CPU cost only; informational)',
        value: memEngineRate,
        unit: 'commits/s',
        baseline: memBareRate,
        baselineName: 'bare INSERT in memory',
        ratio: memEngineRate / memBareRate,
      },
    ];
  } finally {
    bare.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

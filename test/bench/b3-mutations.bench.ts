// B3 (mutations): commit throughput of runtime mutations (validated insert, revision bump, change log,
// JSON output check, one immediate transaction each) against a bare better-sqlite3 INSERT in autocommit
// mode, both on a file with the same pragmas (WAL, synchronous FULL), measured in the same run.
// Every row runs interleaved rounds (rounds.ts) and reports the median of the per-round ratios with their
// min–max. The commit rows alternate ours and bare operation by operation inside each round (order swapped
// every round): fsync latency on a shared disk swings within milliseconds, so a 400 ms window of one side
// and then one of the other measured the disk's mood more than the code.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createEngine, createFetchHandler, defineBackend, defineSchema, defineTable, functionsFor, openDatabase, v } from '../../src/runtime/index.js';
import type { BenchResult } from './bench-types.js';
import { pairedRow } from './paired-row.js';
import { median, roundsFrom, type Paired } from './rounds.js';

const schema = defineSchema({ tasks: defineTable({ text: v.string({ max: 200 }), done: v.boolean() }).index('by_done', ['done']) });
const { mutation } = functionsFor(schema);
const backend = defineBackend({
  schema,
  functions: { tasks: { add: mutation({ args: { text: v.string() }, handler: (ctx, args) => ctx.db.insert('tasks', { text: args.text, done: false }) }) } },
});

// Short rounds, many of them: fsync latency on a shared disk drifts within seconds.
const ROUND_MS = Number(process.env.SVC_B3_ROUND_MS ?? 400);
const ROUNDS = roundsFrom(process.env.SVC_B3_ROUNDS, 9);
const MEMORY_ROUND_MS = 250;

let counter = 0;

/** How a round turns per-operation times into a rate: the mean (throughput), or the median operation. */
type Statistic = 'mean' | 'median';

/**
 * One round of operation-by-operation alternation for about `ms`: each side's rate is its operations per
 * second of its own time, so a slow fsync lands on whichever side was running, at the same odds for both.
 * `median` rates by the median operation instead, for CPU-only rows where preemption by other processes on
 * a shared host otherwise decides the figure.
 */
async function alternatingRound(
  ms: number,
  ours: (i: number) => unknown,
  baseline: (i: number) => unknown,
  oursFirst: boolean,
  statistic: Statistic,
): Promise<[number, number]> {
  const sides = oursFirst ? [ours, baseline] : [baseline, ours];
  const times: [number[], number[]] = [[], []];
  let next = counter;
  for (const end = next + 10; next < end; next++) for (const side of sides) await side(next);
  const start = performance.now();
  while (performance.now() - start < ms) {
    for (let k = 0; k < 5; k++, next++) {
      for (let s = 0; s < 2; s++) {
        const t0 = performance.now();
        await sides[s]!(next);
        times[s]!.push(performance.now() - t0);
      }
    }
  }
  counter = next;
  const perSecond = (t: number[]): number => 1000 / (statistic === 'median' ? median(t) : t.reduce((a, b) => a + b, 0) / t.length);
  const [first, second] = [perSecond(times[0]), perSecond(times[1])];
  return oursFirst ? [first, second] : [second, first];
}

/** `rounds` alternating rounds (which side starts swaps every round), as paired rates. */
async function alternating(
  rounds: number,
  ms: number,
  ours: (i: number) => unknown,
  baseline: (i: number) => unknown,
  statistic: Statistic = 'mean',
): Promise<Paired> {
  const paired: Paired = { ours: [], baseline: [] };
  for (let round = 0; round < rounds; round++) {
    const [o, b] = await alternatingRound(ms, ours, baseline, round % 2 === 0, statistic);
    paired.ours.push(o);
    paired.baseline.push(b);
  }
  return paired;
}

const BARE_TABLE = 'CREATE TABLE tasks (_id TEXT PRIMARY KEY, _creationTime REAL, _version INTEGER, _ownerId TEXT, doc TEXT) STRICT';

/** A bare table with the runtime's column layout and its autocommit INSERT. */
function bareInsert(db: Database.Database): (i: number) => unknown {
  db.exec(BARE_TABLE);
  const insert = db.prepare('INSERT INTO tasks VALUES (?, ?, 1, NULL, ?)');
  return (i) => insert.run(`t${i}`, Date.now(), JSON.stringify({ text: `task ${i}`, done: false }));
}

/** One POST through the Fetch handler, as a server adapter would call it (the body read back). */
function httpMutation(handler: ReturnType<typeof createFetchHandler>): (i: number) => Promise<void> {
  return async (i) => {
    const response = await handler(new Request('http://app.localhost/__svc/mutation/tasks/add', { method: 'POST', body: `{"text":"task ${i}"}` }));
    if (response.status !== 200) throw new Error(`mutation failed: ${response.status}`);
    await response.text();
  };
}

function row(name: string, paired: Paired, unit: string, baselineName: string, atLeast?: number): BenchResult {
  const target = atLeast === undefined ? undefined : { text: `>= ${atLeast}x`, pass: (ratio: number) => ratio >= atLeast };
  return pairedRow('B3', name, paired, unit, baselineName, target);
}

/** B3 mutation-throughput rows. */
export default async function b3Mutations(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-b3m-'));
  const bare = new Database(join(dir, 'bare.db'));
  const db = openDatabase(schema, { path: join(dir, 'runtime.db') });
  const memBare = new Database(':memory:');
  const memDb = openDatabase(schema);
  try {
    bare.pragma('journal_mode = WAL');
    bare.pragma('synchronous = FULL');
    const insert = bareInsert(bare);
    const engine = createEngine(backend, db);
    const http = httpMutation(createFetchHandler(backend, db, { engine }));
    const fetchRounds = await alternating(ROUNDS, ROUND_MS, http, insert);
    const engineMutation = (i: number): unknown => engine.runMutation('tasks/add', { text: `task ${i}` }, null);
    const engineRounds = await alternating(ROUNDS, ROUND_MS, engineMutation, insert);
    // What the Fetch layer adds on top of the same durable commit (the rest of the gap to bare is the engine's).
    const layerRounds = await alternating(ROUNDS, ROUND_MS, http, engineMutation);

    // CPU-only views (no fsync): in-memory databases show the runtime's and the Fetch layer's own per-commit cost.
    const memInsert = bareInsert(memBare);
    const memEngine = createEngine(backend, memDb);
    const memHttp = httpMutation(createFetchHandler(backend, memDb, { engine: memEngine }));
    const memEngineMutation = (i: number): unknown => memEngine.runMutation('tasks/add', { text: `task ${i}` }, null);
    const memFetchRounds = await alternating(ROUNDS, MEMORY_ROUND_MS, memHttp, memEngineMutation, 'median');
    const memEngineRounds = await alternating(ROUNDS, MEMORY_ROUND_MS, memEngineMutation, memInsert, 'median');
    const bareName = 'bare better-sqlite3 INSERT, same pragmas';
    return [
      row('fetch-handler mutation throughput ÷ bare (POST through createFetchHandler; higher is better)', fetchRounds, 'commits/s', bareName, 0.7),
      row('mutation throughput, engine.runMutation ÷ bare (higher is better)', engineRounds, 'commits/s', bareName, 0.5),
      row('Fetch layer on a durable commit: handler POST ÷ engine.runMutation (informational)', layerRounds, 'commits/s', 'engine.runMutation, same database'),
      row(
        'Fetch layer in memory: handler POST ÷ engine.runMutation (median operation; CPU cost of Request/Response; informational)',
        memFetchRounds,
        'commits/s',
        'engine.runMutation in memory',
      ),
      row(
        'mutation throughput in memory, engine ÷ bare INSERT (median operation; CPU cost only; informational)',
        memEngineRounds,
        'commits/s',
        'bare INSERT in memory',
      ),
    ];
  } finally {
    bare.close();
    db.close();
    memBare.close();
    memDb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Allow `node --import tsx test/bench/b3-mutations.bench.ts` on its own.
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  console.table(await b3Mutations());
}

import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, openDatabase, type AppDatabase, type CommitEvent } from '../../src/runtime/index.js';
import { backend } from './support/tasks-backend.js';

let db: AppDatabase | undefined;
afterEach(() => db?.close());

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('commit events', () => {
  it('are delivered after COMMIT, asynchronously, with the tables, documents and revision written', async () => {
    db = openDatabase(backend.schema);
    const engine = createEngine(backend, db);
    const events: CommitEvent[] = [];
    db.onCommit((event) => events.push(event));
    const { value: id, revision } = engine.runMutation<string>('notes/add', { title: 'a', priority: 1 }, null);
    expect(events).toHaveLength(0);
    await nextTick();
    expect(events).toHaveLength(1);
    expect(events[0]!.revision).toBe(revision);
    expect([...events[0]!.tables]).toEqual(['notes']);
    expect([...events[0]!.documents]).toEqual([id]);
  });

  it('are not emitted for rolled-back or write-free mutations', async () => {
    db = openDatabase(backend.schema);
    const engine = createEngine(backend, db);
    const events: CommitEvent[] = [];
    db.onCommit((event) => events.push(event));
    expect(() => engine.runMutation('notes/addThenThrow', { title: 'x' }, null)).toThrow();
    await nextTick();
    expect(events).toHaveLength(0);
    expect(db.revision()).toBe(0);
  });

  it('run before-commit hooks inside the transaction; a throwing hook rolls the mutation back', () => {
    db = openDatabase(backend.schema);
    const engine = createEngine(backend, db);
    const seen: number[] = [];
    const off = db.onBeforeCommit((tx, info) => {
      expect(tx.inTransaction).toBe(true);
      seen.push(info.revision);
    });
    engine.runMutation('notes/add', { title: 'a', priority: 1 }, null);
    off();
    db.onBeforeCommit(() => {
      throw new Error('journal unavailable');
    });
    expect(() => engine.runMutation('notes/add', { title: 'b', priority: 1 }, null)).toThrow('journal unavailable');
    expect(seen).toEqual([1]);
    expect(engine.runQuery('notes/count', {}, null).value).toBe(1);
    expect(db.revision()).toBe(1);
  });

  it('keep a throwing listener away from the mutation and from other listeners', async () => {
    const errors: unknown[] = [];
    db = openDatabase(backend.schema, { onListenerError: (e) => errors.push(e) });
    const engine = createEngine(backend, db);
    const events: number[] = [];
    db.onCommit(() => {
      throw new Error('listener bug');
    });
    db.onCommit((e) => events.push(e.revision));
    engine.runMutation('notes/add', { title: 'a', priority: 1 }, null);
    await nextTick();
    expect(events).toEqual([1]);
    expect(errors).toHaveLength(1);
  });

  it('a mutation does not get slower with many subscribers: fan-out runs after the commit returns', async () => {
    db = openDatabase(backend.schema);
    const engine = createEngine(backend, db);
    const timeMutations = (count: number): number => {
      const times: number[] = [];
      for (let i = 0; i < count; i++) {
        const start = process.hrtime.bigint();
        engine.runMutation('notes/add', { title: `n${i}`, priority: 1 }, null);
        times.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      times.sort((a, b) => a - b);
      return times[Math.floor(times.length / 2)]!;
    };
    const id = engine.runMutation<string>('notes/add', { title: 'watched', priority: 1 }, null).value;
    timeMutations(50);
    const withoutSubscribers = timeMutations(100);
    await nextTick();
    // 1,000 subscribers, each rerunning a query on every commit: real work, but never on the mutation's path.
    let reruns = 0;
    for (let i = 0; i < 1000; i++) {
      db.onCommit(() => {
        engine.runQuery('notes/get', { id }, null);
        reruns++;
      });
    }
    const withSubscribers = timeMutations(100);
    expect(reruns).toBe(0);
    await nextTick();
    expect(reruns).toBe(1000 * 100);
    // Median latency stays in the same range (generous bound for a shared 2-core machine).
    expect(withSubscribers).toBeLessThan(withoutSubscribers * 3 + 0.5);
  }, 120_000);
});

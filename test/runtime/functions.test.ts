import { afterEach, describe, expect, it } from 'vitest';
import {
  createEngine,
  DatabaseConflictError,
  defineBackend,
  functionsFor,
  openDatabase,
  RuntimeError,
  v,
  type Identity,
  type RuntimeEngine,
} from '../../src/runtime/index.js';
import type { AppDatabase } from '../../src/runtime/index.js';
import { backend, schema } from './support/tasks-backend.js';

const alice: Identity = { userId: 'user_alice', sessionId: 's1', email: 'a@example.com' };
const bob: Identity = { userId: 'user_bob', sessionId: 's2', email: 'b@example.com' };

let db: AppDatabase;
let engine: RuntimeEngine;
function setup(): void {
  db = openDatabase(backend.schema);
  engine = createEngine(backend, db);
}
afterEach(() => db?.close());

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof RuntimeError ? error.code : `not a RuntimeError: ${String(error)}`;
  }
  return undefined;
}

function noteCount(): number {
  return engine.runQuery<number>('notes/count', {}, null).value;
}

describe('queries and mutations', () => {
  it('inserts documents with system fields and reads them back', () => {
    setup();
    const { value: id, revision } = engine.runMutation<string>('notes/add', { title: 'a', priority: 2 }, null);
    expect(id).toMatch(/^notes_[0-9a-z]{20}$/);
    expect(revision).toBe(1);
    const doc = engine.runQuery<Record<string, unknown>>('notes/get', { id }, null).value;
    expect(doc).toMatchObject({ _id: id, _version: 1, title: 'a', priority: 2, done: false });
    expect(typeof doc._creationTime).toBe('number');
    expect(doc).not.toHaveProperty('_ownerId');
  });

  it('records dependencies: get tracks the document, builder queries track the table', () => {
    setup();
    const id = engine.runMutation<string>('notes/add', { title: 'a', priority: 2 }, null).value;
    const byId = engine.runQuery('notes/get', { id }, null);
    expect([...byId.dependencies.documents]).toEqual([id]);
    expect(byId.dependencies.tables.size).toBe(0);
    const list = engine.runQuery('notes/list', {}, null);
    expect([...list.dependencies.tables]).toEqual(['notes']);
    expect(list.revision).toBe(1);
  });

  it('filters, orders and limits through the builder', () => {
    setup();
    for (const [title, priority] of [
      ['a', 1],
      ['b', 5],
      ['c', 3],
    ] as const)
      engine.runMutation('notes/add', { title, priority }, null);
    const all = engine.runQuery<Array<{ title: string }>>('notes/list', {}, null).value;
    expect(all.map((n) => n.title)).toEqual(['b', 'c', 'a']);
    const low = engine.runQuery<Array<{ title: string }>>('notes/list', { maxPriority: 4 }, null).value;
    expect(low.map((n) => n.title)).toEqual(['c', 'a']);
  });

  it('bumps _version on patch and rejects a stale ifVersion with DatabaseConflictError, rolling back', () => {
    setup();
    const id = engine.runMutation<string>('notes/add', { title: 'a', priority: 2 }, null).value;
    const patched = engine.runMutation<{ _version: number; done: boolean }>('notes/setDone', { id, done: true, ifVersion: 1 }, null);
    expect(patched.value).toMatchObject({ _version: 2, done: true });
    const before = db.revision();
    let error: unknown;
    try {
      engine.runMutation('notes/setDone', { id, done: false, ifVersion: 1 }, null);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DatabaseConflictError);
    expect((error as DatabaseConflictError).code).toBe('SVC_RUNTIME_CONFLICT');
    expect(engine.runQuery('notes/get', { id }, null).value).toMatchObject({ done: true, _version: 2 });
    expect(db.revision()).toBe(before);
  });

  it('rejects invalid arguments and unknown functions with stable codes', () => {
    setup();
    expect(codeOf(() => engine.runMutation('notes/add', { title: 'a', priority: 1.5 }, null))).toBe('SVC_RUNTIME_INVALID_ARGUMENTS');
    expect(codeOf(() => engine.runMutation('notes/add', { title: 'a', priority: 1, extra: 1 }, null))).toBe('SVC_RUNTIME_INVALID_ARGUMENTS');
    expect(codeOf(() => engine.runMutation('notes/add', null, null))).toBe('SVC_RUNTIME_INVALID_ARGUMENTS');
    expect(codeOf(() => engine.runQuery('notes/get', { id: 'tasks_00000000000000000000' }, null))).toBe('SVC_RUNTIME_INVALID_ARGUMENTS');
    expect(codeOf(() => engine.runQuery('notes/nope', {}, null))).toBe('SVC_RUNTIME_UNKNOWN_FUNCTION');
    expect(codeOf(() => engine.runQuery('notes/add', {}, null))).toBe('SVC_RUNTIME_UNKNOWN_FUNCTION');
    expect(codeOf(() => engine.runMutation('notes/list', {}, null))).toBe('SVC_RUNTIME_UNKNOWN_FUNCTION');
  });

  it('rolls back every write when the handler throws or returns bad output', () => {
    setup();
    engine.runMutation('notes/add', { title: 'kept', priority: 1 }, null);
    const revision = db.revision();
    expect(() => engine.runMutation('notes/addThenThrow', { title: 'x' }, null)).toThrow('boom');
    expect(codeOf(() => engine.runMutation('notes/addThenAppError', { title: 'x' }, null))).toBe('SVC_RUNTIME_APP_ERROR');
    expect(codeOf(() => engine.runMutation('notes/addThenHuge', { title: 'x' }, null))).toBe('SVC_RUNTIME_OUTPUT_TOO_LARGE');
    expect(codeOf(() => engine.runMutation('notes/addThenNonJson', { title: 'x' }, null))).toBe('SVC_RUNTIME_INVALID_OUTPUT');
    expect(noteCount()).toBe(1);
    expect(db.revision()).toBe(revision);
  });

  it('validates documents before they are written', () => {
    setup();
    expect(codeOf(() => engine.runMutation('notes/add', { title: '', priority: 1 }, null))).toBe('SVC_RUNTIME_INVALID_DOCUMENT');
    expect(noteCount()).toBe(0);
  });

  it('returns not-found for deleting a missing document and keeps the revision when nothing was written', () => {
    setup();
    const id = engine.runMutation<string>('notes/add', { title: 'a', priority: 1 }, null).value;
    engine.runMutation('notes/remove', { id }, null);
    expect(engine.runQuery('notes/get', { id }, null).value).toBeNull();
    expect(codeOf(() => engine.runMutation('notes/remove', { id }, null))).toBe('SVC_RUNTIME_DOCUMENT_NOT_FOUND');
    expect(db.revision()).toBe(2);
  });
});

describe('owned tables', () => {
  it('stamps _ownerId and scopes reads and writes to the caller', () => {
    setup();
    const id = engine.runMutation<string>('tasks/add', { text: 'mine' }, alice).value;
    expect(engine.runQuery('tasks/get', { id }, alice).value).toMatchObject({ _ownerId: alice.userId, text: 'mine' });
    // Another user's document behaves exactly like a missing one.
    expect(engine.runQuery('tasks/get', { id }, bob).value).toBeNull();
    expect(engine.runQuery<unknown[]>('tasks/list', {}, bob).value).toEqual([]);
    expect(engine.runMutation('tasks/toggle', { id }, bob).value).toBeNull();
    expect(codeOf(() => engine.runMutation('tasks/forceDone', { id }, bob))).toBe('SVC_RUNTIME_DOCUMENT_NOT_FOUND');
    expect(codeOf(() => engine.runMutation('tasks/remove', { id }, bob))).toBe('SVC_RUNTIME_DOCUMENT_NOT_FOUND');
    expect(engine.runQuery('tasks/get', { id }, alice).value).toMatchObject({ done: false, _version: 1 });
    expect(codeOf(() => engine.runQuery('tasks/list', {}, null))).toBe('SVC_RUNTIME_UNAUTHENTICATED');
  });
});

describe('Convex-style extras', () => {
  it('unique() returns the single match and refuses several; ctx.auth.getUserIdentity() returns the caller', () => {
    const { query } = functionsFor(schema);
    const extras = defineBackend({
      schema,
      functions: {
        byTitle: query({ args: { title: v.string() }, handler: (ctx, args) => ctx.db.query('notes').where('title', args.title).unique() }),
        whoami: query({ handler: (ctx) => ctx.auth.getUserIdentity()?.userId ?? null }),
      },
    });
    db = openDatabase(schema);
    const base = createEngine(backend, db);
    const engineWithExtras = createEngine(extras, db);
    base.runMutation('notes/add', { title: 'one', priority: 1 }, null);
    base.runMutation('notes/add', { title: 'two', priority: 1 }, null);
    base.runMutation('notes/add', { title: 'two', priority: 2 }, null);
    expect(engineWithExtras.runQuery('byTitle', { title: 'one' }, null).value).toMatchObject({ title: 'one' });
    expect(engineWithExtras.runQuery('byTitle', { title: 'none' }, null).value).toBeNull();
    expect(codeOf(() => engineWithExtras.runQuery('byTitle', { title: 'two' }, null))).toBe('SVC_RUNTIME_INVALID_QUERY');
    expect(engineWithExtras.runQuery('whoami', {}, alice).value).toBe(alice.userId);
  });
});

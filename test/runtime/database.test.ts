import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, defineBackend, defineSchema, defineTable, openDatabase, RuntimeError, v, type AppDatabase } from '../../src/runtime/index.js';
import { DocumentReader } from '../../src/runtime/database/document-reader.js';
import { backend, schema } from './support/tasks-backend.js';

const dirs: string[] = [];
const open: AppDatabase[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-runtime-db-'));
  dirs.push(dir);
  return join(dir, 'app.db');
}
function track(db: AppDatabase): AppDatabase {
  open.push(db);
  return db;
}

describe('openDatabase', () => {
  it('defaults to an in-memory database without polling', () => {
    const db = track(openDatabase(schema));
    expect(db.path).toBeNull();
    expect(db.sqlite.memory).toBe(true);
  });

  it('applies the file-backed defaults: WAL, synchronous FULL, 5 s busy timeout, private permissions', () => {
    const path = tempFile();
    const db = track(openDatabase(schema, { path }));
    expect(db.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.sqlite.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.sqlite.pragma('busy_timeout', { simple: true })).toBe(5000);
    createEngine(backend, db).runMutation('notes/add', { title: 'a', priority: 1 }, null);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(`${path}-wal`).mode & 0o777).toBe(0o600);
    db.close();
    // WAL files recreated by a later open keep the database's permissions.
    const again = track(openDatabase(schema, { path }));
    createEngine(backend, again).runMutation('notes/add', { title: 'b', priority: 1 }, null);
    expect(statSync(`${path}-wal`).mode & 0o777).toBe(0o600);
  });

  it('honours wal: false and busyTimeout', () => {
    const db = track(openDatabase(schema, { path: tempFile(), wal: false, busyTimeout: 1234 }));
    expect(db.sqlite.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(db.sqlite.pragma('busy_timeout', { simple: true })).toBe(1234);
  });

  it('persists the revision across restarts', () => {
    const path = tempFile();
    const first = openDatabase(schema, { path });
    const engine = createEngine(backend, first);
    engine.runMutation('notes/add', { title: 'a', priority: 1 }, null);
    engine.runMutation('notes/add', { title: 'b', priority: 1 }, null);
    first.close();
    const second = track(openDatabase(schema, { path }));
    expect(second.revision()).toBe(2);
    expect(createEngine(backend, second).runMutation('notes/add', { title: 'c', priority: 1 }, null).revision).toBe(3);
  });

  it('revalidates existing rows against the schema when opening', () => {
    const path = tempFile();
    const db = openDatabase(schema, { path });
    createEngine(backend, db).runMutation('notes/add', { title: 'a', priority: 1 }, null);
    db.close();
    const stricter = defineSchema({
      notes: defineTable({ title: v.string(), priority: v.number(), done: v.boolean(), tag: v.optional(v.string()), due: v.number() }),
    });
    expect(() => openDatabase(stricter, { path })).toThrow(expect.objectContaining({ code: 'SVC_RUNTIME_SCHEMA_MISMATCH' }));
  });

  it('fails closed on a file that is not a database', () => {
    const path = tempFile();
    writeFileSync(path, 'this is not sqlite '.repeat(100));
    let error: unknown;
    try {
      openDatabase(schema, { path });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RuntimeError);
    expect((error as RuntimeError).code).toBe('SVC_RUNTIME_DATABASE');
  });

  it('fails with SVC_RUNTIME_DATABASE when the directory does not exist', () => {
    expect(() => openDatabase(schema, { path: join(tempFile(), 'missing', 'app.db') })).toThrow(expect.objectContaining({ code: 'SVC_RUNTIME_DATABASE' }));
  });

  it('checks table, field, index and function names at startup', () => {
    expect(() => defineSchema({ _bad: defineTable({}) })).toThrow(expect.objectContaining({ code: 'SVC_RUNTIME_SCHEMA' }));
    expect(() => defineSchema({ sqlite_x: defineTable({}) })).toThrow(expect.objectContaining({ code: 'SVC_RUNTIME_SCHEMA' }));
    expect(() => defineSchema({ t: defineTable({ 'a-b': v.string() }) })).toThrow(expect.objectContaining({ code: 'SVC_RUNTIME_SCHEMA' }));
    expect(() => defineSchema({ t: defineTable({ a: v.string() }).index('i', ['b' as 'a']) })).toThrow(expect.objectContaining({ code: 'SVC_RUNTIME_SCHEMA' }));
    expect(() => defineSchema({ t: defineTable({ a: v.string() }).index('i', ['a']).index('i', ['a']) })).toThrow(
      expect.objectContaining({ code: 'SVC_RUNTIME_SCHEMA' }),
    );
    expect(() => defineBackend({ schema, functions: { 'bad name': backend.functions.notes } })).toThrow(
      expect.objectContaining({ code: 'SVC_RUNTIME_SCHEMA' }),
    );
    expect(() => defineBackend({ schema, functions: { notes: { list: 42 } } as never })).toThrow(expect.objectContaining({ code: 'SVC_RUNTIME_SCHEMA' }));
  });

  it('creates expression indexes that the compiled queries use (EXPLAIN QUERY PLAN)', () => {
    const db = track(openDatabase(schema));
    const engine = createEngine(backend, db);
    for (let i = 0; i < 50; i++) engine.runMutation('notes/add', { title: `n${i}`, priority: i }, null);
    db.sqlite.exec('ANALYZE');
    const plan = (sql: string, params: unknown[]) =>
      (db.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((row) => row.detail).join('\n');
    const query = (build: (reader: ReturnType<typeof readerOf>) => { toSql(): { sql: string; params: unknown[] } }) => {
      const { sql, params } = build(readerOf(db)).toSql();
      return plan(sql, params);
    };
    expect(query((r) => r.query('notes').where('done', true))).toMatch(/USING INDEX notes__by_done/);
    expect(query((r) => r.query('notes').filter((q) => q.gte('priority', 40)))).toMatch(/USING INDEX notes__by_priority/);
    expect(query((r) => r.query('notes').withIndex('by_priority').order('desc', 'priority'))).toMatch(/notes__by_priority/);
    expect(query((r) => r.query('notes').order('desc'))).toMatch(/notes__by_creation_time/);
  });

  it('drops an index the schema no longer declares', () => {
    const path = tempFile();
    openDatabase(schema, { path }).close();
    const fewer = defineSchema({ ...schema.tables, notes: defineTable(schema.tables.notes.fields).index('by_done', ['done']) });
    const db = track(openDatabase(fewer, { path }));
    const names = (db.sqlite.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'notes'`).all() as Array<{ name: string }>).map(
      (r) => r.name,
    );
    expect(names).toContain('notes__by_done');
    expect(names).not.toContain('notes__by_priority');
  });

  it('keeps unchanged indexes across opens (no rebuild) and rebuilds changed ones', () => {
    const path = tempFile();
    openDatabase(schema, { path }).close();
    const indexes = (db: AppDatabase) =>
      db.sqlite.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'notes' ORDER BY name`).all();
    const again = openDatabase(schema, { path });
    const before = indexes(again);
    again.close();
    const same = openDatabase(schema, { path });
    expect(indexes(same)).toEqual(before);
    same.close();
    const changed = defineSchema({
      ...schema.tables,
      notes: defineTable(schema.tables.notes.fields).index('by_done', ['done', 'priority']).index('by_priority', ['priority']),
    });
    const db = track(openDatabase(changed, { path }));
    const sql = (db.sqlite.prepare(`SELECT sql FROM sqlite_master WHERE name = 'notes__by_done'`).get() as { sql: string }).sql;
    expect(sql).toContain(`json_extract("doc", '$.priority')`);
  });
});

function readerOf(db: AppDatabase): DocumentReader {
  return new DocumentReader(db, null, null);
}

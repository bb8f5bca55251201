import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cachedStatement, openControlDb, type ControlDb } from '../../src/core/control-db.js';

describe('cachedStatement', () => {
  const dirs: string[] = [];
  const dbs: ControlDb[] = [];
  afterEach(() => {
    dbs.splice(0).forEach((db) => db.open && db.close());
    dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
  });
  const open = (): ControlDb => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-db-cache-'));
    dirs.push(dir);
    const db = openControlDb(join(dir, 'control.db'));
    dbs.push(db);
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t (v) VALUES ('a'), ('b'), ('c');");
    return db;
  };

  it('prepares each SQL text once per database and still sees every write', () => {
    const db = open();
    const other = open();
    const sql = 'SELECT v FROM t WHERE id = ?';
    const first = cachedStatement(db, sql);
    expect(cachedStatement(db, sql)).toBe(first);
    expect(cachedStatement(other, sql)).not.toBe(first);
    expect(first.get(1)).toEqual({ v: 'a' });
    cachedStatement(db, 'UPDATE t SET v = ? WHERE id = ?').run('z', 1);
    expect(cachedStatement(db, sql).get(1)).toEqual({ v: 'z' });
    // A schema change is picked up by the cached statement (SQLite re-prepares it).
    db.exec('ALTER TABLE t ADD COLUMN w TEXT');
    expect(cachedStatement(db, 'SELECT * FROM t WHERE id = ?').get(2)).toEqual({ id: 2, v: 'b', w: null });
  });

  it('keeps raw (array-row) statements apart from keyed ones for the same SQL', () => {
    const db = open();
    const sql = 'SELECT id, v FROM t WHERE id = ?';
    const raw = cachedStatement(db, sql, { raw: true });
    expect(cachedStatement(db, sql, { raw: true })).toBe(raw);
    expect(raw.get(2)).toEqual([2, 'b']);
    expect(cachedStatement(db, sql).get(2)).toEqual({ id: 2, v: 'b' });
    expect(raw.get(3)).toEqual([3, 'c']);
  });

  it('hands a private statement to a caller while the cached one is still iterating', () => {
    const db = open();
    const sql = 'SELECT id FROM t ORDER BY id';
    const seen: number[] = [];
    for (const row of cachedStatement(db, sql).iterate() as Iterable<{ id: number }>) {
      seen.push(row.id, (cachedStatement(db, sql).all() as unknown[]).length);
    }
    expect(seen).toEqual([1, 3, 2, 3, 3, 3]);
  });

  it('keeps a bounded number of statements', () => {
    const db = open();
    const first = cachedStatement(db, 'SELECT 0');
    for (let i = 1; i <= 600; i++) cachedStatement(db, `SELECT ${i}`);
    // The oldest entry was evicted: asking again prepares a new statement that works the same.
    const again = cachedStatement(db, 'SELECT 0');
    expect(again).not.toBe(first);
    expect(again.get()).toEqual({ '0': 0 });
  });
});

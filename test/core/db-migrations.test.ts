import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openControlDb, type ControlDb } from '../../src/core/control-db.js';
import { applyMigrations, planMigrations, readAppliedVersions, type Migration } from '../../src/core/db-migrations.js';
import { SvcError } from '../../src/core/errors.js';

const m = (scope: string, version: number, up: (db: ControlDb) => void = () => {}): Migration => ({ scope, version, name: `${scope} ${version}`, up });

describe('planMigrations (pure)', () => {
  it('returns pending migrations in list order', () => {
    const list = [m('a', 1), m('a', 2), m('b', 1)];
    expect(planMigrations(new Map(), list).map((x) => `${x.scope}${x.version}`)).toEqual(['a1', 'a2', 'b1']);
    expect(planMigrations(new Map([['a', 1]]), list).map((x) => `${x.scope}${x.version}`)).toEqual(['a2', 'b1']);
    expect(
      planMigrations(
        new Map([
          ['a', 2],
          ['b', 1],
        ]),
        list,
      ),
    ).toEqual([]);
  });
  it('rejects gaps and a database newer than the code', () => {
    expect(() => planMigrations(new Map(), [m('a', 1), m('a', 3)])).toThrow(/out of order/);
    expect(() => planMigrations(new Map([['a', 5]]), [m('a', 1)])).toThrow(SvcError);
    try {
      planMigrations(new Map([['a', 5]]), [m('a', 1)]);
    } catch (error) {
      expect((error as SvcError).code).toBe('SVC_DB_SCHEMA_TOO_NEW');
    }
  });
});

describe('applyMigrations', () => {
  let dir: string;
  let db: ControlDb;
  afterEach(() => {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies each migration in its own transaction and rolls a failing one back completely', () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-mig-'));
    db = openControlDb(join(dir, 'c.db'));
    const ok = m('x', 1, (d) => d.exec('CREATE TABLE one (a)'));
    const bad = m('x', 2, (d) => {
      d.exec('CREATE TABLE two (a)');
      throw new Error('boom');
    });
    let caught: unknown;
    try {
      applyMigrations(db, [ok, bad]);
    } catch (error) {
      caught = error;
    }
    expect((caught as SvcError).code).toBe('SVC_DB_MIGRATION_FAILED');
    expect(readAppliedVersions(db).get('x')).toBe(1);
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type='table'").all() as { name: string }[]).map((r) => r.name);
    expect(tables).toContain('one');
    expect(tables).not.toContain('two');
    // Re-running with a fixed migration continues from version 1.
    applyMigrations(db, [ok, m('x', 2, (d) => d.exec('CREATE TABLE two (a)'))]);
    expect(readAppliedVersions(db).get('x')).toBe(2);
  });
});

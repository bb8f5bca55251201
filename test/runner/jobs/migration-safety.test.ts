import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../../src/core/errors.js';
import type { MigrationFile } from '../../../runner/jobs/migration-files.js';
import { checkMigrationSafety, findUnsafeStatements } from '../../../runner/jobs/migration-safety.js';
import { splitStatements, tokenizeSql } from '../../../runner/jobs/sql-tokens.js';

const kinds = (sql: string) => findUnsafeStatements(sql).map((f) => `${f.kind}:${f.detail}`);

describe('findUnsafeStatements', () => {
  it.each([
    ["ATTACH DATABASE 'x.db' AS x", 'attach:ATTACH'],
    ['detach x', 'attach:DETACH'],
    ['PRAGMA foreign_keys = OFF', 'pragma:PRAGMA'],
    ['  pragma journal_mode=delete', 'pragma:PRAGMA'],
    ['VACUUM', 'vacuum:VACUUM'],
    ['BEGIN TRANSACTION', 'transaction-control:BEGIN'],
    ['commit', 'transaction-control:COMMIT'],
    ['END', 'transaction-control:END'],
    ['ROLLBACK', 'transaction-control:ROLLBACK'],
    ['SAVEPOINT s1', 'transaction-control:SAVEPOINT'],
    ['RELEASE s1', 'transaction-control:RELEASE'],
    ['EXPLAIN QUERY PLAN PRAGMA x', 'pragma:PRAGMA'],
    ["INSERT INTO _svc_migrations VALUES (9, 'x', 'y', 0)", 'reserved-table-write:_SVC_MIGRATIONS'],
    ['insert or replace into main."_svc_migrations" values (1)', 'reserved-table-write:_svc_migrations'],
    ['REPLACE INTO [sqlite_sequence] VALUES (1, 2)', 'reserved-table-write:sqlite_sequence'],
    ['UPDATE _svc_migrations SET checksum = 1', 'reserved-table-write:_SVC_MIGRATIONS'],
    ['UPDATE OR IGNORE `_svc_x` SET a = 1', 'reserved-table-write:_svc_x'],
    ['DELETE FROM sqlite_stat1', 'reserved-table-write:SQLITE_STAT1'],
    ['DROP TABLE IF EXISTS _svc_migrations', 'reserved-table-write:_SVC_MIGRATIONS'],
    ['ALTER TABLE _svc_migrations ADD COLUMN x', 'reserved-table-write:_SVC_MIGRATIONS'],
    ['CREATE TABLE IF NOT EXISTS _svc_mine (a)', 'reserved-table-write:_SVC_MINE'],
    ['CREATE INDEX i ON _svc_migrations(name)', 'reserved-table-write:_SVC_MIGRATIONS'],
    ['CREATE TRIGGER t AFTER INSERT ON users BEGIN DELETE FROM _svc_migrations; END', 'reserved-table-write:_SVC_MIGRATIONS'],
  ])('%s', (sql, expected) => {
    expect(kinds(sql)).toEqual([expected]);
  });

  it('ignores keywords inside strings, quoted identifiers and comments', () => {
    const sql = `
      -- PRAGMA foreign_keys = OFF; VACUUM;
      /* ATTACH 'x' AS y; BEGIN; */
      CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT DEFAULT 'PRAGMA; VACUUM; COMMIT');
      INSERT INTO notes (body) VALUES ('INSERT INTO _svc_migrations VALUES (1)');
      INSERT INTO "notes" (body) VALUES ('it''s; DELETE FROM sqlite_master');
      CREATE TABLE "begin" (x);
      SELECT name FROM sqlite_master;
      INSERT INTO notes (body) SELECT name FROM sqlite_master;
      CREATE VIEW v AS SELECT * FROM _svc_migrations;
      CREATE TABLE orders (id INTEGER, user_id INTEGER REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE);
      CREATE TRIGGER audit_notes AFTER UPDATE OF body ON notes BEGIN
        INSERT INTO log VALUES (CASE WHEN new.body IS NULL THEN 'x' ELSE 'y' END);
        SELECT RAISE(ROLLBACK, 'no');
      END;
    `;
    expect(findUnsafeStatements(sql)).toEqual([]);
  });

  it('reports the line of each unsafe statement', () => {
    expect(findUnsafeStatements('CREATE TABLE a (x);\n\nPRAGMA user_version = 3;\nVACUUM;')).toEqual([
      { kind: 'pragma', line: 3, detail: 'PRAGMA' },
      { kind: 'vacuum', line: 4, detail: 'VACUUM' },
    ]);
  });

  it('keeps trigger bodies (with nested CASE … END) in one statement', () => {
    const sql = 'CREATE TEMP TRIGGER t AFTER INSERT ON a BEGIN UPDATE a SET x = CASE WHEN 1 THEN 2 END; DELETE FROM b; END; COMMIT;';
    const statements = splitStatements(tokenizeSql(sql));
    expect(statements).toHaveLength(2);
    expect(statements[1]!.map((t) => t.value)).toEqual(['COMMIT']);
  });
});

describe('checkMigrationSafety', () => {
  const file = (name: string, sql: string): MigrationFile => ({ version: 1, name, checksum: 'c', sql });
  const files = [file('0001_ok.sql', 'CREATE TABLE a (x)'), file('0002_bad.sql', 'CREATE TABLE b (x);\nPRAGMA foreign_keys = OFF;')];

  it('rejects unsafe SQL unless the config AND the operator both allow it', () => {
    for (const [config, operator] of [
      [false, false],
      [true, false],
      [false, true],
    ] as const) {
      let error: unknown;
      try {
        checkMigrationSafety(files, { allowUnsafeMigrations: config, operatorAllowsUnsafe: operator });
      } catch (e) {
        error = e;
      }
      expect(isSvcError(error, 'SVC_MIGRATION_UNSAFE')).toBe(true);
      expect((error as { details: { file: string; line: number } }).details).toMatchObject({ file: '0002_bad.sql', line: 2 });
    }
    expect(checkMigrationSafety(files, { allowUnsafeMigrations: true, operatorAllowsUnsafe: true })).toEqual([
      { file: '0002_bad.sql', findings: [{ kind: 'pragma', line: 2, detail: 'PRAGMA' }] },
    ]);
  });

  it('accepts safe migrations without any switch', () => {
    expect(checkMigrationSafety([files[0]!], { allowUnsafeMigrations: false, operatorAllowsUnsafe: false })).toEqual([]);
  });
});

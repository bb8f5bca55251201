import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../../src/core/clock.js';
import { isSvcError } from '../../../src/core/errors.js';
import { migrateDatabase, readAppliedHistory } from '../../../runner/jobs/apply-migrations.js';

let dir: string;
let migrations: string;
let databasePath: string;
const safe = { allowUnsafeMigrations: false, operatorAllowsUnsafe: false };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-apply-'));
  migrations = join(dir, 'release', 'migrations');
  databasePath = join(dir, 'data', 'app.db');
  await mkdir(migrations, { recursive: true });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const write = (name: string, sql: string) => writeFile(join(migrations, name), sql);
const migrate = (extra: Partial<Parameters<typeof migrateDatabase>[0]> = {}) =>
  migrateDatabase({ databasePath, migrationsDir: migrations, ...safe, clock: manualClock(1_000), ...extra });
function query<T>(sql: string): T[] {
  const db = new Database(databasePath, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}
const tables = () => query<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map((r) => r.name);

describe('migrateDatabase', () => {
  it('creates the database and applies pending migrations with history rows', async () => {
    await write('0001_users.sql', 'CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);');
    await write('0002_seed.sql', "INSERT INTO users (name) VALUES ('ada');");
    expect(await migrate()).toEqual({ applied: ['0001_users.sql', '0002_seed.sql'], allowedUnsafe: [] });
    expect(query('SELECT name FROM users')).toEqual([{ name: 'ada' }]);
    const db = new Database(databasePath);
    expect(readAppliedHistory(db).map((r) => [r.version, r.name, r.appliedAt])).toEqual([
      [1, '0001_users.sql', 1000],
      [2, '0002_seed.sql', 1000],
    ]);
    db.close();
    // Running again applies nothing; a new file is applied alone.
    expect((await migrate()).applied).toEqual([]);
    await write('0003_more.sql', "INSERT INTO users (name) VALUES ('grace');");
    expect((await migrate()).applied).toEqual(['0003_more.sql']);
    expect(query('SELECT count(*) AS n FROM users')).toEqual([{ n: 2 }]);
  });

  it('rolls back every pending migration when one fails, naming the file', async () => {
    await write('0001_users.sql', 'CREATE TABLE users (id INTEGER PRIMARY KEY);');
    await migrate();
    await write('0002_orders.sql', 'CREATE TABLE orders (id INTEGER PRIMARY KEY);');
    await write('0003_broken.sql', 'INSERT INTO orders VALUES (1);\nINSERT INTO no_such_table VALUES (1);');
    const error = await migrate().catch((e: unknown) => e);
    expect(isSvcError(error, 'SVC_MIGRATION_FAILED')).toBe(true);
    expect((error as { details: { file: string } }).details.file).toBe('0003_broken.sql');
    expect(tables()).toEqual(['_svc_migrations', 'users']);
    expect(query('SELECT name FROM _svc_migrations')).toEqual([{ name: '0001_users.sql' }]);
  });

  it('rejects an edited applied migration before changing anything', async () => {
    await write('0001_users.sql', 'CREATE TABLE users (id INTEGER PRIMARY KEY);');
    await migrate();
    await write('0001_users.sql', 'CREATE TABLE users (id INTEGER PRIMARY KEY, extra TEXT);');
    await write('0002_orders.sql', 'CREATE TABLE orders (id INTEGER);');
    await expect(migrate()).rejects.toSatisfy((e) => isSvcError(e, 'SVC_MIGRATION_HISTORY_EDITED'));
    expect(tables()).toEqual(['_svc_migrations', 'users']);
  });

  it('rejects unsafe migrations unless both switches allow them', async () => {
    await write('0001_users.sql', "CREATE TABLE users (id INTEGER);\nINSERT INTO _svc_migrations VALUES (99, 'x', 'y', 0);");
    await expect(migrate()).rejects.toSatisfy((e) => isSvcError(e, 'SVC_MIGRATION_UNSAFE'));
    await expect(migrate({ allowUnsafeMigrations: true })).rejects.toSatisfy((e) => isSvcError(e, 'SVC_MIGRATION_UNSAFE'));
    expect(tables()).toEqual([]);
    await write('0001_users.sql', 'PRAGMA foreign_keys = OFF;\nCREATE TABLE users (id INTEGER);');
    const result = await migrate({ allowUnsafeMigrations: true, operatorAllowsUnsafe: true });
    expect(result.applied).toEqual(['0001_users.sql']);
    expect(result.allowedUnsafe[0]!.findings[0]!.kind).toBe('pragma');
  });

  it('fails (and rolls back) if an allowed migration ends the transaction itself', async () => {
    await write('0001_a.sql', 'CREATE TABLE a (x);\nCOMMIT;');
    await expect(migrate({ allowUnsafeMigrations: true, operatorAllowsUnsafe: true })).rejects.toSatisfy((e) => isSvcError(e, 'SVC_MIGRATION_FAILED'));
  });

  it('waits for the write lock with an immediate transaction and fails if it stays busy', async () => {
    await write('0001_a.sql', 'CREATE TABLE a (x);');
    await mkdir(join(dir, 'data'), { recursive: true });
    const other = new Database(databasePath);
    other.exec('BEGIN IMMEDIATE');
    await expect(migrate({ busyTimeoutMs: 50 })).rejects.toSatisfy((e) => isSvcError(e, 'SVC_MIGRATION_FAILED'));
    other.exec('ROLLBACK');
    other.close();
    expect((await migrate()).applied).toEqual(['0001_a.sql']);
    expect(existsSync(databasePath)).toBe(true);
  });
});

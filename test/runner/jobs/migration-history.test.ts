import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SvcError } from '../../../src/core/errors.js';
import { migrationChecksum, parseMigrationName, readMigrationFiles, type MigrationFile } from '../../../runner/jobs/migration-files.js';
import { planMigrations, type AppliedMigration } from '../../../runner/jobs/migration-history.js';

const file = (version: number, name: string, sql = `-- ${name}`): MigrationFile => ({ version, name, sql, checksum: migrationChecksum(Buffer.from(sql)) });
const applied = (f: MigrationFile): AppliedMigration => ({ version: f.version, name: f.name, checksum: f.checksum, appliedAt: 1 });
const code = (fn: () => unknown): string => {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return e instanceof SvcError ? e.code : String(e);
  }
};

describe('planMigrations', () => {
  const a = file(1, '0001_init.sql');
  const b = file(2, '0002_users.sql');
  const c = file(3, '0003_orders.sql');

  it('returns the files not yet applied, in order', () => {
    expect(planMigrations([c, a, b], [])).toEqual([a, b, c]);
    expect(planMigrations([a, b, c], [applied(a)])).toEqual([b, c]);
    expect(planMigrations([a, b, c], [applied(a), applied(b), applied(c)])).toEqual([]);
  });

  it('rejects an edited or renamed applied migration', () => {
    expect(code(() => planMigrations([file(1, '0001_init.sql', 'changed'), b], [applied(a)]))).toBe('SVC_MIGRATION_HISTORY_EDITED');
    expect(code(() => planMigrations([{ ...a, name: '0001_start.sql' }, b], [applied(a)]))).toBe('SVC_MIGRATION_HISTORY_EDITED');
  });

  it('rejects a missing applied migration', () => {
    expect(code(() => planMigrations([b], [applied(a)]))).toBe('SVC_MIGRATION_MISSING');
  });

  it('rejects a new migration numbered below the last applied one', () => {
    expect(code(() => planMigrations([a, b, c], [applied(a), applied(c)]))).toBe('SVC_MIGRATION_OUT_OF_ORDER');
  });
});

describe('readMigrationFiles', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-mig-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads NNNN_name.sql files in version order with SHA-256 checksums, ignoring other files', async () => {
    await writeFile(join(dir, '0010_later.sql'), 'CREATE TABLE b (x);');
    await writeFile(join(dir, '0002_first.sql'), 'CREATE TABLE a (x);');
    await writeFile(join(dir, 'README.md'), 'notes');
    const files = await readMigrationFiles(dir);
    expect(files.map((f) => [f.version, f.name])).toEqual([
      [2, '0002_first.sql'],
      [10, '0010_later.sql'],
    ]);
    // Known SHA-256 of the exact bytes.
    expect(files[0]!.checksum).toBe('5d4dfde3b9ddf0a46b24120bb95e8ec12aaf6782f4c94912c492152df44fac27');
    expect(files[0]!.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('treats a missing directory as no migrations', async () => {
    expect(await readMigrationFiles(join(dir, 'nope'))).toEqual([]);
  });

  it('rejects badly named .sql files, duplicate versions and non-regular files', async () => {
    await writeFile(join(dir, 'init.sql'), '');
    await expect(readMigrationFiles(dir)).rejects.toSatisfy((e) => e instanceof SvcError && e.code === 'SVC_MIGRATION_INVALID_NAME');
    await rm(join(dir, 'init.sql'));
    await writeFile(join(dir, '0001_a.sql'), '');
    await writeFile(join(dir, '0001_b.sql'), '');
    await expect(readMigrationFiles(dir)).rejects.toSatisfy((e) => e instanceof SvcError && e.code === 'SVC_MIGRATION_OUT_OF_ORDER');
    await rm(join(dir, '0001_b.sql'));
    await mkdir(join(dir, 'x'));
    await symlink(join(dir, 'x'), join(dir, '0002_link.sql'));
    await expect(readMigrationFiles(dir)).rejects.toSatisfy((e) => e instanceof SvcError && e.code === 'SVC_MIGRATION_INVALID_NAME');
  });

  it('parses names', () => {
    expect(parseMigrationName('0001_init.sql')).toBe(1);
    expect(parseMigrationName('12345_x-y.z.sql')).toBe(12345);
    expect(parseMigrationName('001_short.sql')).toBeNull();
    expect(parseMigrationName('0001_.sql')).toBeNull();
    expect(parseMigrationName('0001_../x.sql')).toBeNull();
  });
});

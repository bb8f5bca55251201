import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/clock.js';
import { isSvcError } from '../../src/core/errors.js';
import { openPointInTimeRecovery, type PointInTimeRecovery } from '../../src/recovery/open-point-in-time-recovery.js';
import { restorePointInTime } from '../../src/recovery/restore-point-in-time.js';
import { dumpTables } from './support/dump-tables.js';
import { openRawHost, type RawHost } from './support/raw-host.js';
import { cleanupTempDirs, tempDir, testKey } from './support/temp-dir.js';

const confirmation = 'restore point in time';
const open: { host?: RawHost; recovery?: PointInTimeRecovery } = {};

afterEach(async () => {
  await open.recovery?.close().catch(() => undefined);
  open.host?.close();
  open.host = undefined;
  open.recovery = undefined;
  cleanupTempDirs();
});

async function setup(schema: string, clock = manualClock(1_000_000)) {
  const dir = tempDir();
  const host = openRawHost(join(dir, 'app.db'));
  host.sqlite.exec(schema);
  const recovery = await openPointInTimeRecovery(host, { directory: join(dir, 'repo'), encryptionKey: testKey, exportIntervalMs: false, clock });
  open.host = host;
  open.recovery = recovery;
  return { dir, host, recovery, repo: join(dir, 'repo'), clock };
}

async function codeOf(promise: Promise<unknown> | (() => unknown)): Promise<string | undefined> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    return isSvcError(error) ? error.code : `not SvcError: ${String(error)}`;
  }
  return undefined;
}

describe('capture and restore', () => {
  it('journals each commit and restores every exact boundary, storage classes included', async () => {
    const { dir, host, recovery, repo, clock } = await setup(
      'CREATE TABLE t (id INTEGER PRIMARY KEY, a, b TEXT); CREATE TABLE k (x TEXT, y INTEGER, v BLOB, PRIMARY KEY (x, y)) WITHOUT ROWID',
    );
    const snapshots = [dumpTables(host.sqlite)];
    const steps: ((db: Database.Database) => void)[] = [
      (db) => db.prepare('INSERT INTO t VALUES (1, 1.5, ?)').run('one'),
      (db) => db.prepare('INSERT INTO t VALUES (2, ?, NULL)').run(Buffer.from([0, 1, 2])),
      (db) => db.prepare('UPDATE t SET a = 3 WHERE id = 1').run(),
      (db) => db.prepare('INSERT INTO k VALUES (?, ?, ?)').run('p', 9007199254740991n, Buffer.from('x')),
      (db) => db.prepare('UPDATE t SET id = 5 WHERE id = 2').run(),
      (db) => {
        db.prepare('DELETE FROM t WHERE id = 1').run();
        db.prepare('INSERT INTO t VALUES (1, -0.0, ?)').run('again');
        db.prepare('INSERT INTO t VALUES (7, 1e308 * 10, ?)').run('inf');
      },
    ];
    for (const step of steps) {
      clock.advance(1000);
      host.write(step);
      snapshots.push(dumpTables(host.sqlite));
    }
    expect(recovery.status().committedThrough).toBe(steps.length);
    expect(recovery.status().exportedThrough).toBe(0);
    const flushed = await recovery.flush();
    expect(flushed.exportedThrough).toBe(steps.length);
    expect(existsSync(join(repo, 'epoch.json'))).toBe(true);
    expect(readdirSync(join(repo, 'journal')).length).toBe(1);
    for (let seq = 0; seq <= steps.length; seq++) {
      const targetPath = join(dir, `restored-${seq}.db`);
      const result = await restorePointInTime({ directory: repo, encryptionKey: testKey, targetPath, throughSequence: seq, confirmation });
      expect(result.sequence).toBe(seq);
      expect(dumpTables(targetPath)).toEqual(snapshots[seq]);
      const restored = new Database(targetPath, { readonly: true });
      const meta = restored.prepare(`SELECT name FROM sqlite_schema WHERE name LIKE '%recovery%'`).all();
      restored.close();
      expect(meta).toEqual([]);
    }
    // asOf picks the latest commit at or before the time; before the base fails.
    const asOfPath = join(dir, 'asof.db');
    const byTime = await restorePointInTime({ directory: repo, encryptionKey: testKey, targetPath: asOfPath, asOf: 1_000_000 + 3_500, confirmation });
    expect(byTime.sequence).toBe(3);
    expect(dumpTables(asOfPath)).toEqual(snapshots[3]);
    expect(await codeOf(restorePointInTime({ directory: repo, encryptionKey: testKey, targetPath: join(dir, 'x.db'), asOf: 999_999, confirmation }))).toBe(
      'SVC_RECOVERY_BEFORE_BASE',
    );
    expect(
      await codeOf(
        restorePointInTime({ directory: repo, encryptionKey: testKey, targetPath: join(dir, 'x.db'), throughSequence: steps.length + 1, confirmation }),
      ),
    ).toBe('SVC_RECOVERY_SEQUENCE_UNAVAILABLE');
  });

  it('rolls back the app write when the transaction is oversized or an integer is unsafe', async () => {
    const dir = tempDir();
    const host = openRawHost(join(dir, 'app.db'));
    open.host = host;
    host.sqlite.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v)');
    open.recovery = await openPointInTimeRecovery(host, {
      directory: join(dir, 'repo'),
      encryptionKey: testKey,
      exportIntervalMs: false,
      maxTransactionBytes: 2000,
    });
    host.write((db) => db.prepare('INSERT INTO t VALUES (1, ?)').run('small'));
    expect(await codeOf(() => host.write((db) => db.prepare('INSERT INTO t VALUES (2, ?)').run('x'.repeat(5000))))).toBe('SVC_RECOVERY_TRANSACTION_TOO_LARGE');
    expect(await codeOf(() => host.write((db) => db.prepare('INSERT INTO t VALUES (3, ?)').run(2n ** 60n)))).toBe('SVC_RECOVERY_UNSAFE_INTEGER');
    expect(host.sqlite.prepare('SELECT id FROM t').pluck().all()).toEqual([1]);
    expect(open.recovery.status().committedThrough).toBe(1);
    host.write((db) => db.prepare('INSERT INTO t VALUES (4, ?)').run('after'));
    expect(open.recovery.status().committedThrough).toBe(2);
    await open.recovery.flush();
    const target = join(dir, 'r.db');
    await restorePointInTime({ directory: join(dir, 'repo'), encryptionKey: testKey, targetPath: target, throughSequence: 2, confirmation });
    expect(dumpTables(target)).toEqual(dumpTables(host.sqlite));
  });

  it('journals an autocommit write made outside a managed transaction in a follow-up entry', async () => {
    const { dir, host, recovery, repo } = await setup('CREATE TABLE _svc_sessions (id TEXT PRIMARY KEY, user TEXT)');
    host.sqlite.prepare('INSERT INTO _svc_sessions VALUES (?, ?)').run('s1', 'alice');
    expect(recovery.status().committedThrough).toBe(0);
    await Promise.resolve();
    expect(recovery.status().committedThrough).toBe(1);
    await recovery.flush();
    await restorePointInTime({ directory: repo, encryptionKey: testKey, targetPath: join(dir, 'r.db'), throughSequence: 1, confirmation });
    expect(dumpTables(join(dir, 'r.db'))).toEqual(dumpTables(host.sqlite));
  });

  it('rejects state above maxStateBytes (at commit and at attach) and more than 200,000 rows per table', async () => {
    const dir = tempDir();
    const host = openRawHost(join(dir, 'app.db'));
    open.host = host;
    host.sqlite.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    host.sqlite.prepare('INSERT INTO t VALUES (1, ?)').run('x'.repeat(500));
    open.recovery = await openPointInTimeRecovery(host, { directory: join(dir, 'repo'), encryptionKey: testKey, exportIntervalMs: false, maxStateBytes: 1500 });
    host.write((db) => db.prepare('INSERT INTO t VALUES (2, ?)').run('y'.repeat(500)));
    expect(await codeOf(() => host.write((db) => db.prepare('INSERT INTO t VALUES (3, ?)').run('z'.repeat(600))))).toBe('SVC_RECOVERY_STATE_TOO_LARGE');
    expect(host.sqlite.prepare('SELECT count(*) FROM t').pluck().get()).toBe(2);
    await open.recovery.close();
    expect(
      await codeOf(openPointInTimeRecovery(host, { directory: join(dir, 'repo'), encryptionKey: testKey, exportIntervalMs: false, maxStateBytes: 800 })),
    ).toBe('SVC_RECOVERY_STATE_TOO_LARGE');
    const big = openRawHost(join(dir, 'big.db'));
    try {
      big.sqlite.exec('CREATE TABLE many (id INTEGER PRIMARY KEY)');
      big.sqlite.exec('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200001) INSERT INTO many SELECT i FROM n');
      expect(await codeOf(openPointInTimeRecovery(big, { directory: join(dir, 'big-repo'), encryptionKey: testKey, exportIntervalMs: false }))).toBe(
        'SVC_RECOVERY_TOO_MANY_ROWS',
      );
    } finally {
      big.close();
    }
  });

  it('rejects a repository of another epoch and a key that is not 32 bytes', async () => {
    const { dir, repo } = await setup('CREATE TABLE t (id INTEGER PRIMARY KEY)');
    const other = openRawHost(join(dir, 'other.db'));
    try {
      other.sqlite.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)');
      expect(await codeOf(openPointInTimeRecovery(other, { directory: repo, encryptionKey: testKey, exportIntervalMs: false }))).toBe(
        'SVC_RECOVERY_REPOSITORY_MISMATCH',
      );
      expect(await codeOf(openPointInTimeRecovery(other, { directory: join(dir, 'r2'), encryptionKey: Buffer.alloc(16) }))).toBe('SVC_RECOVERY_KEY_INVALID');
      expect(existsSync(join(dir, 'r2'))).toBe(false);
    } finally {
      other.close();
    }
  });

  it('replaces an existing stopped database (WAL mode, closed) and leaves no stale -wal behind', async () => {
    const { dir, host, recovery, repo } = await setup('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    host.write((db) => db.prepare('INSERT INTO t VALUES (1, ?)').run('restored'));
    await recovery.flush();
    const destination = join(dir, 'stopped.db');
    const old = new Database(destination);
    old.pragma('journal_mode = WAL');
    old.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (9, 'old')");
    old.close();
    await restorePointInTime({ directory: repo, encryptionKey: testKey, targetPath: destination, throughSequence: 1, confirmation });
    expect(existsSync(`${destination}-wal`)).toBe(false);
    expect(dumpTables(destination)).toEqual(dumpTables(host.sqlite));
    const reopened = new Database(destination);
    expect(reopened.pragma('integrity_check', { simple: true })).toBe('ok');
    reopened.close();
  });
});

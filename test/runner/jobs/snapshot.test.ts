import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSvcError } from '../../../src/core/errors.js';
import { createSnapshot, databaseFootprint, restoreSnapshot } from '../../../runner/jobs/snapshot.js';
import { mountSmallFilesystem } from '../../core/small-filesystem.js';
import { skipOrFail } from '../../support/require-components.js';
import { readdirSync } from 'node:fs';
import { longestStall } from '../../support/longest-stall.js';

let dir: string;
let dbPath: string;
const open: Database.Database[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-snap-'));
  dbPath = join(dir, 'data', 'app.db');
  await mkdir(join(dir, 'data'));
});
afterEach(async () => {
  for (const db of open.splice(0)) if (db.open) db.close();
  await rm(dir, { recursive: true, force: true });
});

function connect(): Database.Database {
  const db = new Database(dbPath);
  open.push(db);
  return db;
}
function count(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM items').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('snapshots', () => {
  it('backs up a live WAL database consistently and records its exact size', async () => {
    const writer = connect();
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0'); // keep committed rows only in the -wal file
    writer.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, body TEXT)');
    const insert = writer.prepare('INSERT INTO items (body) VALUES (?)');
    writer.transaction(() => {
      for (let i = 0; i < 500; i++) insert.run('x'.repeat(200));
    })();
    expect((await stat(`${dbPath}-wal`)).size).toBeGreaterThan(0);
    const snapshot = await createSnapshot(dbPath, join(dir, 'snapshots', 'rel_1.db'));
    expect(snapshot.hadDatabase).toBe(true);
    expect(snapshot.sizeBytes).toBe((await stat(snapshot.path)).size);
    expect(snapshot.sizeBytes).toBeGreaterThan(100_000);
    expect(count(snapshot.path)).toBe(500);
    const check = new Database(snapshot.path, { readonly: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();
    expect(await databaseFootprint(dbPath)).toBeGreaterThan(snapshot.sizeBytes / 2);
  });

  it('restores the snapshot, dropping newer writes and the stale write-ahead log', async () => {
    const db = connect();
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, body TEXT)');
    db.prepare('INSERT INTO items (body) VALUES (?)').run('before');
    const snapshot = await createSnapshot(dbPath, join(dir, 'snap.db'));
    db.pragma('wal_autocheckpoint = 0');
    for (let i = 0; i < 50; i++) db.prepare('INSERT INTO items (body) VALUES (?)').run('after');
    db.exec('CREATE TABLE newer (x)');
    db.close();
    // Leave a WAL behind, as a killed app would.
    await writeFile(`${dbPath}-wal`, Buffer.alloc(4096, 7));
    await restoreSnapshot(snapshot.path, dbPath);
    expect(existsSync(`${dbPath}-wal`)).toBe(false);
    expect(existsSync(`${dbPath}-shm`)).toBe(false);
    expect(count(dbPath)).toBe(1);
    const after = connect();
    expect(after.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(after.prepare("SELECT name FROM sqlite_master WHERE name = 'newer'").get()).toBeUndefined();
    // The snapshot is kept so a retry can restore it again.
    expect(existsSync(snapshot.path)).toBe(true);
  });

  it('handles a project without a database yet: empty snapshot, restore removes the database', async () => {
    const snapshot = await createSnapshot(dbPath, join(dir, 'snap.db'));
    expect(snapshot).toEqual({ path: join(dir, 'snap.db'), sizeBytes: 0, hadDatabase: false });
    expect(existsSync(dbPath)).toBe(false);
    const db = connect();
    db.exec('CREATE TABLE items (id INTEGER)');
    db.close();
    await restoreSnapshot(snapshot.path, dbPath);
    expect(existsSync(dbPath)).toBe(false);
    expect(await databaseFootprint(dbPath)).toBe(0);
  });

  it('fails clearly when the snapshot is missing or the source is not a database', async () => {
    await expect(restoreSnapshot(join(dir, 'nope.db'), dbPath)).rejects.toSatisfy((e) => isSvcError(e, 'SVC_SNAPSHOT_MISSING'));
    await writeFile(join(dir, 'junk.db'), 'this is not sqlite, just text long enough to look like a header....'.repeat(100));
    await expect(createSnapshot(join(dir, 'junk.db'), join(dir, 's.db'))).rejects.toSatisfy((e) => isSvcError(e, 'SVC_SNAPSHOT_FAILED'));
    expect(existsSync(join(dir, 's.db'))).toBe(false);
  });

  it('is SVC_DISK_FULL when the snapshot does not fit, and leaves no temp file', async (ctx) => {
    const small = mountSmallFilesystem('1m');
    if (!small) return skipOrFail(ctx, 'mounting a tmpfs needs root');
    try {
      const db = connect();
      db.exec('CREATE TABLE t (b BLOB)');
      db.prepare('INSERT INTO t VALUES (randomblob(3000000))').run();
      await expect(createSnapshot(dbPath, join(small.dir, 'snap.db'))).rejects.toSatisfy((e) => isSvcError(e, 'SVC_DISK_FULL'));
      expect(readdirSync(small.dir)).toEqual([]);
    } finally {
      small.unmount();
    }
  });

  it('keeps the event loop turning while it backs up a large database', async () => {
    const db = connect();
    db.exec('CREATE TABLE t (b BLOB)');
    const insert = db.prepare('INSERT INTO t VALUES (randomblob(1000000))');
    db.transaction(() => {
      for (let i = 0; i < 150; i++) insert.run();
    })();
    const { stallMs: worstGap, tookMs: took } = await longestStall(() => createSnapshot(dbPath, join(dir, 'big.db')), 2);
    // On the loop the backup's steps and final commit held it for a good part of the whole copy.
    expect(took).toBeGreaterThan(100);
    expect(worstGap).toBeLessThan(Math.max(40, took / 4));
  }, 60_000);
});

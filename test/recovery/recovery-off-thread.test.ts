// The control plane's restores and rotation fingerprints run in a worker thread: the same database and result as on the event
// loop, the same error codes and details, and the loop keeps ticking while a large database is replayed,
// proved and checked (on the loop the same restore stops it for most of its duration).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPointInTimeRecovery } from '../../src/recovery/open-point-in-time-recovery.js';
import { databaseFingerprint } from '../../src/recovery/database-fingerprint.js';
import { databaseFingerprintOffThread, restorePointInTimeOffThread } from '../../src/recovery/recovery-off-thread.js';
import { restorePointInTime } from '../../src/recovery/restore-point-in-time.js';
import { dumpTables } from './support/dump-tables.js';
import { openRawHost } from './support/raw-host.js';
import { cleanupTempDirs, tempDir, testKey } from './support/temp-dir.js';
import Database from 'better-sqlite3';
import { longestStall } from '../support/longest-stall.js';

const confirmation = 'restore point in time';
let dir: string;
let repo: string;
let through: number;

beforeAll(async () => {
  dir = tempDir();
  repo = join(dir, 'repo');
  const host = openRawHost(join(dir, 'app.db'));
  host.sqlite.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, doc TEXT)');
  const insert = host.sqlite.prepare('INSERT INTO t (doc) VALUES (?)');
  // Near the per-table row limit, so the synchronous part of a restore is long enough to see.
  host.sqlite.transaction(() => {
    for (let i = 0; i < 180_000; i++) insert.run(`${'x'.repeat(100)}${i}`);
  })();
  const recovery = await openPointInTimeRecovery(host, { directory: repo, encryptionKey: testKey, exportIntervalMs: false });
  for (let i = 0; i < 20; i++) host.sqlite.transaction(() => insert.run(`after ${i}`))();
  await recovery.flush();
  through = (await recovery.status()).exportedThrough;
  await recovery.close();
  host.close();
}, 120_000);
afterAll(cleanupTempDirs);

const dump = (path: string): unknown => {
  const db = new Database(path, { readonly: true });
  try {
    return dumpTables(db);
  } finally {
    db.close();
  }
};

describe('recovery work off the event loop', () => {
  it('restores what restorePointInTime restores, with the same result, and keeps the event loop ticking', async () => {
    const onLoop = await longestStall(() =>
      restorePointInTime({ directory: repo, encryptionKey: testKey, targetPath: join(dir, 'a.db'), throughSequence: through, confirmation }),
    );
    const offLoop = await longestStall(() =>
      restorePointInTimeOffThread({ directory: repo, encryptionKey: testKey, targetPath: join(dir, 'b.db'), throughSequence: through, confirmation }),
    );
    expect({ ...offLoop.value, targetPath: '' }).toEqual({ ...onLoop.value, targetPath: '' });
    expect(offLoop.value.sequence).toBe(through);
    expect(dump(join(dir, 'b.db'))).toEqual(dump(join(dir, 'a.db')));
    // On the loop the restore stands it still for most of its run; off it, never for long.
    expect(onLoop.stallMs).toBeGreaterThan(onLoop.tookMs / 2);
    expect(offLoop.stallMs).toBeLessThan(offLoop.tookMs / 4);
  }, 120_000);

  it('fingerprints a database as databaseFingerprint does, without stalling the loop', async () => {
    const path = join(dir, 'app.db');
    const onLoop = await longestStall(async () => databaseFingerprint(path));
    const offLoop = await longestStall(() => databaseFingerprintOffThread(path));
    expect(offLoop.value).toBe(onLoop.value);
    expect(onLoop.stallMs).toBeGreaterThan(onLoop.tookMs / 2);
    expect(offLoop.stallMs).toBeLessThan(offLoop.tookMs / 4);
    await expect(databaseFingerprintOffThread(join(dir, 'missing.db'))).rejects.toThrow();
  }, 120_000);

  it('keeps the error codes and details of restorePointInTime', async () => {
    const codeOf = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: { code?: string; details?: unknown }) => ({ code: error.code, details: error.details }),
      );
    const wrongKey = Buffer.alloc(32, 9);
    const cases = [
      { directory: repo, encryptionKey: testKey, targetPath: join(dir, 'c.db'), throughSequence: through, confirmation: 'yes' },
      { directory: repo, encryptionKey: wrongKey, targetPath: join(dir, 'd.db'), throughSequence: through, confirmation },
      { directory: repo, encryptionKey: testKey, targetPath: join(dir, 'e.db'), throughSequence: through + 5, confirmation },
    ];
    writeFileSync(join(dir, 'not-sqlite.db'), 'plain text, not a database');
    cases.push({ directory: repo, encryptionKey: testKey, targetPath: join(dir, 'not-sqlite.db'), throughSequence: through, confirmation });
    for (const options of cases) {
      const expected = await codeOf(restorePointInTime(options));
      expect(expected?.code).toMatch(/^SVC_/);
      expect(await codeOf(restorePointInTimeOffThread(options))).toEqual(expected);
    }
  }, 120_000);
});

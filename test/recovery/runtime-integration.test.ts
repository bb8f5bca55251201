// Recovery attached to the real runtime: mutations are journaled, rollbacks leave no entry, a second
// writer fences, reopening without recovery rejects managed writes, and an unexpected writer breaks the seal.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { openPointInTimeRecovery, type PointInTimeRecovery } from '../../src/recovery/open-point-in-time-recovery.js';
import { restorePointInTime } from '../../src/recovery/restore-point-in-time.js';
import type { AppDatabase } from '../../src/runtime/index.js';
import { dumpTables } from './support/dump-tables.js';
import { openBackend } from '../../src/runtime/index.js';
import { authBackend, openApp } from './support/recovery-backend.js';
import { cleanupTempDirs, tempDir, testKey } from './support/temp-dir.js';

const confirmation = 'restore point in time';
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await Promise.resolve(step()).catch(() => undefined);
  cleanupTempDirs();
});

function track(db: AppDatabase, recovery?: PointInTimeRecovery): void {
  cleanup.push(() => db.close());
  if (recovery) cleanup.push(() => recovery.close());
}

function errorCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (isSvcError(error)) return error.code;
    const text = `${(error as Error).message} ${String((error as { cause?: Error }).cause?.message ?? '')}`;
    return /SVC_RECOVERY_[A-Z_]+/.exec(text)?.[0] ?? `other: ${text}`;
  }
  return undefined;
}

describe('recovery on the runtime database', () => {
  it('journals runtime mutations and restores each committed boundary', async () => {
    const dir = tempDir();
    const { db, engine } = openApp(join(dir, 'app.db'));
    const recovery = await openPointInTimeRecovery(db, { directory: join(dir, 'repo'), encryptionKey: testKey, exportIntervalMs: false });
    track(db, recovery);
    const snapshots = [dumpTables(db.sqlite)];
    const a = engine.runMutation<string>('items/add', { name: 'a', qty: 1 }, null).value;
    snapshots.push(dumpTables(db.sqlite));
    engine.runMutation('notes/pair', { text: 'hello' }, null);
    snapshots.push(dumpTables(db.sqlite));
    expect(() => engine.runMutation('items/add', { name: 'x', qty: Number.NaN }, null)).toThrow();
    engine.runMutation('items/set', { id: a, qty: 2.25, flag: true }, null);
    snapshots.push(dumpTables(db.sqlite));
    engine.runMutation('items/remove', { id: a }, null);
    snapshots.push(dumpTables(db.sqlite));
    expect(recovery.status().committedThrough).toBe(4);
    await recovery.flush();
    for (let seq = 0; seq <= 4; seq++) {
      const target = join(dir, `r${seq}.db`);
      await restorePointInTime({ directory: join(dir, 'repo'), encryptionKey: testKey, targetPath: target, throughSequence: seq, confirmation });
      expect(dumpTables(target)).toEqual(snapshots[seq]);
    }
    // The recovered database opens in the runtime and can begin a new epoch.
    const { db: restored, engine: restoredEngine } = openApp(join(dir, 'r4.db'));
    const second = await openPointInTimeRecovery(restored, { directory: join(dir, 'repo2'), encryptionKey: testKey, exportIntervalMs: false });
    track(restored, second);
    restoredEngine.runMutation('items/add', { name: 'new epoch', qty: 3 }, null);
    expect(second.status().committedThrough).toBe(1);
    expect(second.status().epochId).not.toBe(recovery.status().epochId);
  });

  it('fences managed writes after another connection writes, and the seal stays broken after reopening', async () => {
    const dir = tempDir();
    const path = join(dir, 'app.db');
    const { db, engine } = openApp(path);
    const recovery = await openPointInTimeRecovery(db, { directory: join(dir, 'repo'), encryptionKey: testKey, exportIntervalMs: false });
    track(db, recovery);
    engine.runMutation('items/add', { name: 'a', qty: 1 }, null);
    const other = new Database(path);
    other.function('svc_recovery_attached', () => 1); // a writer that fakes the guard
    other.prepare(`UPDATE items SET doc = json_set(doc, '$.qty', 99)`).run();
    other.close();
    expect(errorCode(() => engine.runMutation('items/add', { name: 'b', qty: 2 }, null))).toBe('SVC_RECOVERY_FENCED');
    expect(recovery.status().fenced).toMatch(/another connection/);
    expect(errorCode(() => engine.runMutation('items/add', { name: 'c', qty: 3 }, null))).toBe('SVC_RECOVERY_FENCED');
    expect(recovery.status().committedThrough).toBe(1);
    await recovery.close();
    db.close();
    const { db: again } = openApp(path);
    cleanup.push(() => again.close());
    await expect(openPointInTimeRecovery(again, { directory: join(dir, 'repo'), encryptionKey: testKey, exportIntervalMs: false })).rejects.toMatchObject({
      code: 'SVC_RECOVERY_SEAL_INVALID',
    });
    // The verified epoch still restores to the last sealed commit.
    await restorePointInTime({ directory: join(dir, 'repo'), encryptionKey: testKey, targetPath: join(dir, 'good.db'), throughSequence: 1, confirmation });
  });

  it('rejects managed writes when a journal-bearing database is reopened without recovery, and resumes after reattaching', async () => {
    const dir = tempDir();
    const path = join(dir, 'app.db');
    const first = openApp(path);
    const recovery = await openPointInTimeRecovery(first.db, { directory: join(dir, 'repo'), encryptionKey: testKey, exportIntervalMs: false });
    first.engine.runMutation('items/add', { name: 'a', qty: 1 }, null);
    await recovery.close();
    expect(errorCode(() => first.engine.runMutation('items/add', { name: 'closed', qty: 1 }, null))).toBe('SVC_RECOVERY_NOT_ATTACHED');
    first.db.close();
    const second = openApp(path);
    cleanup.push(() => second.db.close());
    expect(errorCode(() => second.engine.runMutation('items/add', { name: 'b', qty: 2 }, null))).toMatch(/SVC_RECOVERY_NOT_ATTACHED|svc_recovery_attached/);
    await expect(
      openPointInTimeRecovery(second.db, { directory: join(dir, 'repo'), encryptionKey: Buffer.alloc(32, 1), exportIntervalMs: false }),
    ).rejects.toMatchObject({ code: 'SVC_RECOVERY_KEY_INVALID' });
    const reattached = await openPointInTimeRecovery(second.db, { directory: join(dir, 'repo'), encryptionKey: testKey, exportIntervalMs: false });
    cleanup.push(() => reattached.close());
    expect(reattached.status()).toMatchObject({ committedThrough: 1, exportedThrough: 1, epochId: recovery.status().epochId });
    second.engine.runMutation('items/add', { name: 'c', qty: 3 }, null);
    const flushed = await reattached.flush();
    expect(flushed).toMatchObject({ committedThrough: 2, exportedThrough: 2 });
    await restorePointInTime({ directory: join(dir, 'repo'), encryptionKey: testKey, targetPath: join(dir, 'r.db'), throughSequence: 2, confirmation });
    expect(dumpTables(join(dir, 'r.db'))).toEqual(dumpTables(second.db.sqlite));
  });

  it('rejects an oversized runtime transaction and rolls back the app write with it', async () => {
    const dir = tempDir();
    const { db, engine } = openApp(join(dir, 'app.db'));
    const recovery = await openPointInTimeRecovery(db, {
      directory: join(dir, 'repo'),
      encryptionKey: testKey,
      exportIntervalMs: false,
      maxTransactionBytes: 4096,
    });
    track(db, recovery);
    engine.runMutation('items/add', { name: 'small', qty: 1 }, null);
    const revision = db.revision();
    expect(errorCode(() => engine.runMutation('notes/addMany', { texts: Array.from({ length: 20 }, (_, i) => `text ${i} ${'y'.repeat(300)}`) }, null))).toBe(
      'SVC_RECOVERY_TRANSACTION_TOO_LARGE',
    );
    expect(db.revision()).toBe(revision);
    expect(db.sqlite.prepare('SELECT count(*) FROM notes').pluck().get()).toBe(0);
    expect(recovery.status().committedThrough).toBe(1);
  });

  it('rejects unsupported tables at attach', async () => {
    const cases = [
      ['CREATE TABLE nokey (a, b)', 'no primary key'],
      ['CREATE TABLE gen (id INTEGER PRIMARY KEY, a, b AS (a * 2))', 'generated'],
      ['CREATE TABLE nullkey (id TEXT PRIMARY KEY, v); INSERT INTO nullkey VALUES (NULL, 1)', 'null'],
      ['CREATE VIRTUAL TABLE vt USING fts5(body)', 'virtual table'],
    ] as const;
    for (const [sql, reason] of cases) {
      const dir = tempDir();
      const { db } = openApp(join(dir, 'app.db'));
      cleanup.push(() => db.close());
      db.sqlite.exec(sql);
      const error = await openPointInTimeRecovery(db, { directory: join(dir, 'repo'), encryptionKey: testKey, exportIntervalMs: false }).catch(
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: 'SVC_RECOVERY_TABLE_UNSUPPORTED' });
      expect(String((error as { details?: { reason?: string } }).details?.reason)).toContain(reason);
    }
  });

  it('journals built-in auth rows written outside mutations, so a restore keeps the account', async () => {
    const dir = tempDir();
    const app = openBackend(authBackend, { path: join(dir, 'app.db'), pollIntervalMs: false });
    const recovery = await openPointInTimeRecovery(app.db, { directory: join(dir, 'repo'), encryptionKey: testKey, exportIntervalMs: false });
    track(app.db, recovery);
    const response = await app.fetch(
      new Request('http://127.0.0.1/__svc/auth/signup', {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'http://127.0.0.1' },
        body: JSON.stringify({ email: 'a@example.com', password: 'correct horse battery' }),
      }),
    );
    expect(response.status).toBe(201);
    await new Promise((resolve) => setImmediate(resolve));
    expect(recovery.status().committedThrough).toBe(1);
    expect(recovery.status().fenced).toBeNull();
    await recovery.flush();
    const target = join(dir, 'r.db');
    await restorePointInTime({ directory: join(dir, 'repo'), encryptionKey: testKey, targetPath: target, throughSequence: 1, confirmation });
    expect(dumpTables(target)._svc_users).toHaveLength(1);
    expect(dumpTables(target)).toEqual(dumpTables(app.db.sqlite));
  });

  it('rejects managed writes while the repository of a new epoch is still being written', async () => {
    const dir = tempDir();
    const { db, engine } = openApp(join(dir, 'app.db'));
    const opening = openPointInTimeRecovery(db, { directory: join(dir, 'repo'), encryptionKey: testKey, exportIntervalMs: false });
    expect(errorCode(() => engine.runMutation('items/add', { name: 'too early', qty: 1 }, null))).toBe('SVC_RECOVERY_NOT_ATTACHED');
    const recovery = await opening;
    track(db, recovery);
    engine.runMutation('items/add', { name: 'in time', qty: 1 }, null);
    expect(recovery.status().committedThrough).toBe(1);
    expect(db.sqlite.prepare('SELECT count(*) FROM items').pluck().get()).toBe(1);
  });

  it('fences managed writes after a second writer process commits', async () => {
    const dir = tempDir();
    const path = join(dir, 'app.db');
    const { db, engine } = openApp(path);
    const recovery = await openPointInTimeRecovery(db, { directory: join(dir, 'repo'), encryptionKey: testKey, exportIntervalMs: false });
    track(db, recovery);
    engine.runMutation('items/add', { name: 'a', qty: 1 }, null);
    execFileSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'support', 'second-writer.ts'), path], { stdio: 'pipe' });
    expect(errorCode(() => engine.runMutation('items/add', { name: 'b', qty: 2 }, null))).toBe('SVC_RECOVERY_FENCED');
    expect(recovery.status()).toMatchObject({ committedThrough: 1, fenced: expect.stringMatching(/another connection/) });
  });
});

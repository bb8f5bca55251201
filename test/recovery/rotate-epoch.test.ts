// Epoch rotation around a migration: the old archive stays restorable at its final sequence, the new
// epoch starts from the migrated state and journals new writes.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openPointInTimeRecovery } from '../../src/recovery/open-point-in-time-recovery.js';
import { restorePointInTime } from '../../src/recovery/restore-point-in-time.js';
import { rotateRecoveryEpoch } from '../../src/recovery/rotate-recovery-epoch.js';
import { dumpTables } from './support/dump-tables.js';
import { openApp } from './support/recovery-backend.js';
import { cleanupTempDirs, tempDir, testKey } from './support/temp-dir.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await Promise.resolve(step()).catch(() => undefined);
  cleanupTempDirs();
});

describe('rotateRecoveryEpoch', () => {
  it('restores, migrates, attaches a new epoch and verifies a drill; the old epoch is retained', async () => {
    const dir = tempDir();
    const old = openApp(join(dir, 'v1.db'));
    cleanup.push(() => old.db.close());
    const recovery = await openPointInTimeRecovery(old.db, { directory: join(dir, 'epoch-1'), encryptionKey: testKey, exportIntervalMs: false });
    old.engine.runMutation('items/add', { name: 'before migration', qty: 1 }, null);
    old.engine.runMutation('notes/pair', { text: 'x' }, null);
    const beforeMigration = dumpTables(old.db.sqlite);
    let engineOfNew: ReturnType<typeof openApp>['engine'] | undefined;
    const rotated = await rotateRecoveryEpoch({
      recovery,
      directory: join(dir, 'epoch-1'),
      encryptionKey: testKey,
      newDatabasePath: join(dir, 'v2.db'),
      newDirectory: join(dir, 'epoch-2'),
      migrate(path) {
        const db = new Database(path);
        db.exec("CREATE TABLE audit (id INTEGER PRIMARY KEY, note TEXT NOT NULL); INSERT INTO audit VALUES (1, 'migrated')");
        db.close();
      },
      open(path) {
        const app = openApp(path);
        engineOfNew = app.engine;
        return app.db;
      },
      recoveryOptions: { exportIntervalMs: false },
    });
    cleanup.push(() => rotated.database.close());
    cleanup.push(() => rotated.recovery.close());
    expect(rotated.finalSequence).toBe(2);
    expect(rotated.epochId).not.toBe(rotated.previousEpochId);
    // The old database is untouched and its archive still restores the final sequence.
    expect(dumpTables(old.db.sqlite)).toEqual(beforeMigration);
    await restorePointInTime({
      directory: join(dir, 'epoch-1'),
      encryptionKey: testKey,
      targetPath: join(dir, 'old-final.db'),
      throughSequence: 2,
      confirmation: 'restore point in time',
    });
    expect(dumpTables(join(dir, 'old-final.db'))).toEqual(beforeMigration);
    // The new epoch journals writes on top of the migrated state.
    engineOfNew!.runMutation('items/add', { name: 'after migration', qty: 2 }, null);
    expect((await rotated.recovery.flush()).exportedThrough).toBe(1);
    await restorePointInTime({
      directory: join(dir, 'epoch-2'),
      encryptionKey: testKey,
      targetPath: join(dir, 'new-1.db'),
      throughSequence: 1,
      confirmation: 'restore point in time',
    });
    const restored = dumpTables(join(dir, 'new-1.db'));
    expect(restored).toEqual(dumpTables(rotated.database.sqlite));
    expect(restored.audit).toEqual([['1', "'migrated'"]]);
  });
});

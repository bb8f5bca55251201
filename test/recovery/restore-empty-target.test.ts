// A restore into an existing empty file (a placeholder created for it): a failed restore leaves it
// empty — byte-identical, not a fresh 4 KiB SQLite file — and no temp file beside it; a successful one
// replaces it with the restored database.
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockDestination } from '../../src/recovery/destination-lock.js';
import { openPointInTimeRecovery } from '../../src/recovery/open-point-in-time-recovery.js';
import { restorePointInTime } from '../../src/recovery/restore-point-in-time.js';
import { dumpTables } from './support/dump-tables.js';
import { openRawHost } from './support/raw-host.js';
import { cleanupTempDirs, tempDir, testKey } from './support/temp-dir.js';

const confirmation = 'restore point in time';
let source: string;

beforeAll(async () => {
  const work = tempDir();
  source = join(work, 'repo');
  const host = openRawHost(join(work, 'app.db'));
  host.sqlite.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
  const recovery = await openPointInTimeRecovery(host, { directory: source, encryptionKey: testKey, exportIntervalMs: false });
  for (let i = 1; i <= 3; i++) host.write((db) => db.prepare('INSERT INTO t VALUES (?, ?)').run(i, `row ${i}`));
  await recovery.close();
  host.close();
});
afterAll(() => cleanupTempDirs());

/** A copy of the repository with one byte of its journal flipped (restore fails after taking the destination). */
function tamperedRepo(): string {
  const repo = join(tempDir(), 'repo');
  cpSync(source, repo, { recursive: true });
  const journal = join(repo, 'journal');
  const segment = join(
    journal,
    readdirSync(journal)
      .filter((n) => n.endsWith('.svcj'))
      .sort()[0]!,
  );
  const bytes = readFileSync(segment);
  bytes[bytes.length >> 1]! ^= 0x01;
  writeFileSync(segment, bytes);
  return repo;
}

function emptyTarget(): { dir: string; path: string } {
  const dir = tempDir();
  const path = join(dir, 'restored.db');
  writeFileSync(path, '');
  return { dir, path };
}

describe('restore into an existing empty file', () => {
  it('a failed restore leaves the empty file empty and nothing beside it', async () => {
    const { dir, path } = emptyTarget();
    await expect(
      restorePointInTime({ directory: tamperedRepo(), encryptionKey: testKey, targetPath: path, throughSequence: 3, confirmation }),
    ).rejects.toMatchObject({ code: 'SVC_RECOVERY_TAMPERED' });
    expect(statSync(path).size).toBe(0);
    expect(readdirSync(dir)).toEqual(['restored.db']);
  });

  it('a successful restore replaces it with the restored database', async () => {
    const { dir, path } = emptyTarget();
    const result = await restorePointInTime({ directory: source, encryptionKey: testKey, targetPath: path, throughSequence: 2, confirmation });
    expect(result.sequence).toBe(2);
    expect(dumpTables(path).t).toEqual([
      ['1', "'row 1'"],
      ['2', "'row 2'"],
    ]);
    expect(readdirSync(dir)).toEqual(['restored.db']);
  });

  it('checking that the destination is stopped never writes to it', () => {
    const { path } = emptyTarget();
    lockDestination(path).release();
    expect(statSync(path).size).toBe(0);
  });
});

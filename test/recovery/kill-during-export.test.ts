// kill -9 of a writer while it exports: the repository stays restorable through its head, the database
// reattaches (interrupted export files are discarded) and the journal continues without a gap.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openPointInTimeRecovery } from '../../src/recovery/open-point-in-time-recovery.js';
import { restorePointInTime } from '../../src/recovery/restore-point-in-time.js';
import { dumpTables } from './support/dump-tables.js';
import { openRawHost } from './support/raw-host.js';
import { cleanupTempDirs, tempDir, testKey } from './support/temp-dir.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  cleanupTempDirs();
});

/** Run the child until it has exported at least `minExported` entries plus a random extra delay, then SIGKILL it. */
function runAndKill(dbPath: string, repo: string, minExported: number): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'support', 'export-child.ts'), dbPath, repo], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timeout = setTimeout(() => reject(new Error(`child made no progress: ${stderr}`)), 20_000);
    let buffered = '';
    let armed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      const last = lines.at(-1);
      if (armed || last === undefined) return;
      if ((JSON.parse(last) as { exportedThrough: number }).exportedThrough >= minExported) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 40));
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timeout);
      if (signal === 'SIGKILL') resolve();
      else reject(new Error(`child exited with ${code}: ${stderr}`));
    });
  });
}

describe('kill -9 during export', () => {
  it('keeps the repository restorable and lets the writer resume, three times over', async () => {
    const dir = tempDir();
    const dbPath = join(dir, 'app.db');
    const repo = join(dir, 'repo');
    let exported = 0;
    for (let round = 1; round <= 3; round++) {
      await runAndKill(dbPath, repo, exported + 50);
      // Restore straight from what the killed writer left behind.
      const head = JSON.parse(readFileSync(join(repo, 'head.json'), 'utf8')) as { exportedThrough: number };
      expect(head.exportedThrough).toBeGreaterThan(exported);
      exported = head.exportedThrough;
      const target = join(dir, `restored-${round}.db`);
      await restorePointInTime({
        directory: repo,
        encryptionKey: testKey,
        targetPath: target,
        throughSequence: exported,
        confirmation: 'restore point in time',
      });
      const rows = dumpTables(target).t!;
      expect(rows.length).toBe(exported);
      expect(rows.map((row) => Number(row[0])).sort((a, b) => a - b)).toEqual(Array.from({ length: exported }, (_, i) => i + 1));
    }
    // Reattach in this process: interrupted export files are discarded and the journal continues.
    const host = openRawHost(dbPath);
    try {
      const recovery = await openPointInTimeRecovery(host, { directory: repo, encryptionKey: testKey, exportIntervalMs: false });
      const committed = recovery.status().committedThrough;
      expect(committed).toBe(host.sqlite.prepare('SELECT count(*) FROM t').pluck().get());
      expect(readdirSync(join(repo, 'journal')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
      host.write((db) => db.prepare('INSERT INTO t VALUES (?, ?)').run(committed + 1, 'after the crashes'));
      expect((await recovery.flush()).exportedThrough).toBe(committed + 1);
      await recovery.close();
      const final = join(dir, 'final.db');
      await restorePointInTime({
        directory: repo,
        encryptionKey: testKey,
        targetPath: final,
        throughSequence: committed + 1,
        confirmation: 'restore point in time',
      });
      expect(dumpTables(final)).toEqual(dumpTables(host.sqlite));
    } finally {
      host.close();
    }
  }, 90_000);
});

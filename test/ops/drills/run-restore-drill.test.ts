// A real drill: a real SQLite database encrypted with the backups' svc-backup/1 format, decrypted
// into a temp copy, served by a real HTTP server on a loopback port 0, checked over HTTP.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decryptBackupFile, encryptBackupFile } from '../../../src/backups/backup-format.js';
import { runRestoreDrill, type DrillApp } from '../../../src/ops/drills/run-restore-drill.js';

const PROJECT = 'p_drill';
let dir: string;
let production: string;
let backupFile: string;
const key = randomBytes(32);

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-drill-test-'));
  production = join(dir, 'production.db');
  const db = new Database(production);
  db.exec("CREATE TABLE items (name TEXT); INSERT INTO items VALUES ('a'), ('b'), ('c');");
  db.close();
  backupFile = join(dir, 'b1.svcbak');
  await encryptBackupFile(production, backupFile, key, { format: 'svc-backup/1', backupId: 'b1', projectId: PROJECT, createdAt: 1, hadDatabase: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const decrypt = (k: Uint8Array) => async (file: string, dest: string) => {
  await decryptBackupFile(file, dest, k, { backupId: 'b1', projectId: PROJECT });
};

/** Boot a tiny app on the restored copy: /healthz, and /items with the row count. */
function bootRecorder(seen: string[]) {
  return async (projectId: string, { databasePath }: { databasePath: string; signal: AbortSignal }): Promise<DrillApp> => {
    seen.push(databasePath);
    const db = new Database(databasePath);
    const server = createServer((req, res) => {
      if (req.url === '/healthz') return void res.writeHead(200).end('ok');
      if (req.url === '/items') {
        const { n } = db.prepare('SELECT count(*) AS n FROM items').get() as { n: number };
        db.prepare("INSERT INTO items VALUES ('drill')").run(); // writes only touch the copy
        return void res.writeHead(n === 3 ? 200 : 500).end(String(n));
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      stop: async () => {
        await new Promise((r) => server.close(r));
        db.close();
      },
    };
  };
}

describe('runRestoreDrill', () => {
  it('restores into a private temp copy, boots, passes loopback checks, leaves production untouched', async () => {
    const before = readFileSync(production);
    const seen: string[] = [];
    const receipt = await runRestoreDrill({
      projectId: PROJECT,
      backupFile,
      decrypt: decrypt(key),
      boot: bootRecorder(seen),
      checks: [
        { name: 'health', path: '/healthz', status: 200 },
        { name: 'items', path: '/items', status: 200 },
      ],
      timeoutMs: 10_000,
      now: () => 1000,
    });
    expect(receipt).toMatchObject({ projectId: PROJECT, outcome: 'passed', code: null, error: null, startedAt: 1000, finishedAt: 1000 });
    expect(receipt.checks.map((c) => [c.name, c.status, c.ok])).toEqual([
      ['health', 200, true],
      ['items', 200, true],
    ]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toBe(production);
    expect(dirname(seen[0]!).startsWith(join(tmpdir(), 'svc-drill-'))).toBe(true);
    expect(existsSync(dirname(seen[0]!))).toBe(false); // the copy is disposed
    expect(readFileSync(production).equals(before)).toBe(true);
  });

  it('records a failed check with its status', async () => {
    const receipt = await runRestoreDrill({
      projectId: PROJECT,
      backupFile,
      decrypt: decrypt(key),
      boot: bootRecorder([]),
      checks: [{ name: 'missing', path: '/nope', status: 200 }],
      timeoutMs: 10_000,
      now: () => 0,
    });
    expect(receipt).toMatchObject({ outcome: 'failed', code: 'SVC_OPS_DRILL_FAILED' });
    expect(receipt.checks[0]).toMatchObject({ status: 404, ok: false });
  });

  it('reports setup-failed when the backup cannot be decrypted (wrong key) and never boots', async () => {
    const seen: string[] = [];
    const receipt = await runRestoreDrill({
      projectId: PROJECT,
      backupFile,
      decrypt: decrypt(randomBytes(32)),
      boot: bootRecorder(seen),
      checks: [],
      timeoutMs: 10_000,
      now: () => 0,
    });
    expect(receipt).toMatchObject({ outcome: 'setup-failed', code: 'SVC_OPS_DRILL_SETUP' });
    expect(seen).toHaveLength(0);
  });

  it('refuses a non-loopback app and times out a hanging boot', async () => {
    const remote = await runRestoreDrill({
      projectId: PROJECT,
      backupFile,
      decrypt: decrypt(key),
      boot: async () => ({ url: 'http://192.0.2.1:80/', stop: async () => undefined }),
      checks: [{ name: 'h', path: '/', status: 200 }],
      timeoutMs: 10_000,
      now: () => 0,
    });
    expect(remote).toMatchObject({ outcome: 'failed', code: 'SVC_OPS_DRILL_FAILED', checks: [] });
    const started = Date.now();
    const hung = await runRestoreDrill({
      projectId: PROJECT,
      backupFile,
      decrypt: decrypt(key),
      boot: (_id, { signal }) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error))),
      checks: [],
      timeoutMs: 200,
      now: () => 0,
    });
    expect(hung).toMatchObject({ outcome: 'failed', code: 'SVC_OPS_DRILL_TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('an external abort (monitor stop) ends a hanging boot at once', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const receipt = await runRestoreDrill({
      projectId: PROJECT,
      backupFile,
      decrypt: decrypt(key),
      boot: (_id, { signal }) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error))),
      checks: [],
      timeoutMs: 60_000,
      now: () => 0,
      signal: controller.signal,
    });
    expect(receipt).toMatchObject({ outcome: 'failed', code: 'SVC_OPS_DRILL_TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

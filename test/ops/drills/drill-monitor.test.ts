// Restore drills run by the monitor: a real SQLite production database, real svc-backup/1 files
// (one corrupted), a real loopback app booted on the private copy, real monitor tables.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decryptBackupFile, encryptBackupFile } from '../../../src/backups/backup-format.js';
import { DRILL_SETUP_RETRY_MS } from '../../../src/ops/drills/next-due-drill.js';
import type { StoredDrillReceipt } from '../../../src/ops/drills/drill-store.js';
import { drillDueAt, type DrillBackups } from '../../../src/ops/drills/run-due-drill.js';
import type { DrillApp } from '../../../src/ops/drills/run-restore-drill.js';
import type { OperationalAlert } from '../../../src/ops/monitor/incident-store.js';
import { createOperationsMonitor } from '../../../src/ops/monitor/operations-monitor.js';
import { openMonitorDb } from '../monitor/monitor-db.js';

const HOUR = 3_600_000;
const key = randomBytes(32);
let dir: string;
let env: ReturnType<typeof openMonitorDb>;
let production: string;
const backups = new Map<string, { id: string; file: string; createdAt: number }>();

async function backup(projectId: string, id: string, corrupt = false): Promise<void> {
  const file = join(dir, `${id}.svcbak`);
  await encryptBackupFile(production, file, key, { format: 'svc-backup/1', backupId: id, projectId, createdAt: env.clock.now(), hadDatabase: true });
  if (corrupt) {
    const bytes = readFileSync(file);
    bytes[bytes.length - 40]! ^= 0xff; // inside the last authenticated frame
    writeFileSync(file, bytes);
  }
  backups.set(projectId, { id, file, createdAt: env.clock.now() });
}

const drillBackups: DrillBackups = {
  newest: (projectId) => backups.get(projectId) ?? null,
  decrypt: async (projectId, backupId, dest) => {
    await decryptBackupFile(backups.get(projectId)!.file, dest, key, { backupId, projectId });
  },
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-drill-monitor-'));
  env = openMonitorDb();
  production = join(dir, 'production.db');
  const db = new Database(production);
  db.exec("CREATE TABLE items (name TEXT); INSERT INTO items VALUES ('a'), ('b');");
  db.close();
  backups.clear();
});
afterEach(() => {
  env.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Boot a loopback app on the restored copy: /healthz, /items (200 when the rows are there). */
function boot(booted: string[]) {
  return async (projectId: string, { databasePath }: { databasePath: string; signal: AbortSignal }): Promise<DrillApp> => {
    booted.push(projectId);
    const db = new Database(databasePath);
    const server = createServer((req, res) => {
      if (req.url === '/healthz') return void res.writeHead(200).end();
      const { n } = db.prepare('SELECT count(*) AS n FROM items').get() as { n: number };
      db.prepare("INSERT INTO items VALUES ('drill')").run(); // the copy only
      res.writeHead(n === 2 ? 200 : 500).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      stop: async () => void (await new Promise((r) => server.close(r)), db.close()),
    };
  };
}

function setup(projects: string[]) {
  const sent: OperationalAlert[] = [];
  const booted: string[] = [];
  const receipts: StoredDrillReceipt[] = [];
  const monitor = createOperationsMonitor({
    db: env.db,
    clock: env.clock,
    ids: env.ids,
    intervalMs: false,
    usageWarningPercent: 80,
    notify: async (alert) => void sent.push(alert),
    listProjects: (after, limit) => projects.filter((p) => p > after).slice(0, limit),
    sources: [],
    restoreDrills: {
      intervalMs: 24 * HOUR,
      timeoutMs: 10_000,
      boot: boot(booted),
      checks: [
        { name: 'health', path: '/healthz', status: 200 },
        { name: 'items', path: '/items', status: 200 },
      ],
      backups: drillBackups,
      releaseOf: (id) => `rel_${id}`,
      onReceipt: (r) => void receipts.push(r),
    },
  });
  return { monitor, sent, booted, receipts };
}

describe('restore drills in the monitor', () => {
  it('a corrupted backup fails the drill (setup), raises drill.failed, never boots, leaves production byte-identical; retried after five minutes; a good backup resolves it', async () => {
    await backup('p1', 'b1', true);
    const before = readFileSync(production);
    const { monitor, sent, booted, receipts } = setup(['p1']);
    expect(await monitor.runOnce()).toMatchObject({ drill: { projectId: 'p1', outcome: 'setup-failed' }, opened: 1, delivered: 1 });
    expect(booted).toEqual([]);
    expect(readFileSync(production).equals(before)).toBe(true);
    expect(sent[0]).toMatchObject({
      kind: 'drill.failed',
      transition: 'open',
      projectId: 'p1',
      details: { outcome: 'setup-failed', code: 'SVC_OPS_DRILL_SETUP', backupId: 'b1', releaseId: 'rel_p1' },
    });
    expect(receipts[0]).toMatchObject({ projectId: 'p1', outcome: 'setup-failed', backupId: 'b1' });

    env.clock.advance(DRILL_SETUP_RETRY_MS - 1);
    expect(await monitor.runOnce()).toMatchObject({ drill: null });
    env.clock.advance(1);
    expect(await monitor.runOnce()).toMatchObject({ drill: { outcome: 'setup-failed' }, opened: 0 }); // same incident stays open

    await backup('p1', 'b2');
    env.clock.advance(DRILL_SETUP_RETRY_MS);
    expect(await monitor.runOnce()).toMatchObject({ drill: { projectId: 'p1', outcome: 'passed' }, resolved: 1, delivered: 1 });
    expect(booted).toEqual(['p1']);
    expect(sent.map((a) => [a.kind, a.transition])).toEqual([
      ['drill.failed', 'open'],
      ['drill.failed', 'resolve'],
    ]);
    expect(readFileSync(production).equals(before)).toBe(true);
    const drills = monitor.overview().drills;
    expect(drills.map((d) => d.outcome)).toEqual(['passed', 'setup-failed', 'setup-failed']);
    expect(drills[0]).toMatchObject({
      backupId: 'b2',
      releaseId: 'rel_p1',
      code: null,
      checks: [
        { name: 'health', status: 200, ok: true },
        { name: 'items', status: 200, ok: true },
      ],
    });
    // A passed drill waits the full interval.
    env.clock.advance(23 * HOUR);
    expect(await monitor.runOnce()).toMatchObject({ drill: null });
  });

  it('runs one due drill per pass, and a failing check raises drill.failed', async () => {
    await backup('p1', 'b1');
    await backup('p2', 'b2');
    await backup('p3', 'b3');
    const { monitor, sent, booted } = setup(['p1', 'p2', 'p3', 'p4']);
    const db = new Database(production);
    db.exec("INSERT INTO items VALUES ('c')"); // p3's backup below has three rows → /items fails
    db.close();
    await backup('p3', 'b3b');
    for (let i = 0; i < 3; i++) expect((await monitor.runOnce()).drill).not.toBeNull();
    expect(booted.sort()).toEqual(['p1', 'p2', 'p3']);
    expect((await monitor.runOnce()).drill).toBeNull(); // p4 has no backup
    expect(sent.map((a) => [a.kind, a.projectId, a.details.code])).toEqual([['drill.failed', 'p3', 'SVC_OPS_DRILL_FAILED']]);
  });

  it('drill job due times: one interval after the newest backup when never drilled, after the last start, five minutes after a failed setup', async () => {
    const opts = { intervalMs: 24 * HOUR, backups: drillBackups };
    expect(drillDueAt(opts, env.db, 'p1')).toBeNull(); // no retained backup
    const backupAt = env.clock.now();
    await backup('p1', 'b1', true);
    expect(drillDueAt(opts, env.db, 'p1')).toBe(backupAt + 24 * HOUR);
    const { monitor } = setup(['p1']);
    env.clock.advance(1000);
    await monitor.runOnce(); // setup-failed
    const failedAt = env.clock.now();
    expect(drillDueAt(opts, env.db, 'p1')).toBe(failedAt + DRILL_SETUP_RETRY_MS);
    await backup('p1', 'b2');
    env.clock.advance(DRILL_SETUP_RETRY_MS);
    const startedAt = env.clock.now();
    expect((await monitor.runOnce()).drill?.outcome).toBe('passed');
    expect(drillDueAt(opts, env.db, 'p1')).toBe(startedAt + 24 * HOUR);
  });
});

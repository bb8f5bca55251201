// The local ReleaseDriver over the plain process runner, operation by operation with a sample app:
// stage (read-only, `svc` linked), the jobs beside the data (precheck, migrate, snapshot, restore,
// unapplied migrations, footprint), a candidate that runs unsupervised until it is served, stop,
// unstage. Real files, SQLite and processes; the sandbox and podman runners go through the same
// driver in test/releases/driver-contract.test.ts.
import { access, constants, cp, lstat, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalReleaseDriver } from '../../runner/local-release-driver.js';
import { LogStore } from '../../runner/log-store.js';
import { ProcessRunner } from '../../runner/process-runner.js';
import type { MigrationJobTarget, RunningApp, SupervisorEvent } from '../../runner/release-driver.js';

const repo = resolve(import.meta.dirname, '..', '..');
const fixture = join(repo, 'fixtures', 'apps', 'healthy');

let root: string;
let driver: LocalReleaseDriver;
const events: SupervisorEvent[] = [];
const started: RunningApp[] = [];
const releaseDir = () => join(root, 'releases', 'rel_1');
const databasePath = () => join(root, 'data', 'app.db');
const target = (): MigrationJobTarget => ({
  databasePath: databasePath(),
  migrationsDir: join(releaseDir(), 'migrations'),
  allowUnsafeMigrations: false,
  operatorAllowsUnsafe: false,
});
const noteCount = () => {
  const db = new Database(databasePath(), { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM notes').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-local-driver-'));
  const logs = new LogStore({ dir: join(root, 'logs') });
  driver = new LocalReleaseDriver({
    runner: new ProcessRunner({ runsDir: join(root, 'runs'), logs, stopGraceMs: 2_000, tailPollMs: 20 }),
    logs,
    stateFile: join(root, 'supervisor.json'),
    packageDir: repo,
    resolveSpec: async (projectId, releaseId) => ({
      projectId,
      releaseId,
      releaseDir: releaseDir(),
      entry: 'src/server.mjs',
      dataDir: join(root, 'data'),
      databasePath: databasePath(),
      env: {},
      secrets: {},
    }),
    onEvent: (event) => events.push(event),
  });
});

afterAll(async () => {
  for (const app of started) await app.stop({ graceMs: 200 }).catch(() => undefined);
  await driver.stopAll();
  await driver.unstage(releaseDir()).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
});

describe('LocalReleaseDriver (process runner)', () => {
  it('stages the verified files read-only with the platform package linked as @svc-dev/svc', async () => {
    await driver.stage({ releaseDir: releaseDir(), place: (dir) => cp(fixture, dir, { recursive: true }) });
    expect((await lstat(join(releaseDir(), 'node_modules', '@svc-dev', 'svc'))).isSymbolicLink()).toBe(true);
    // Mode bits, not a write attempt: root (as in CI containers) may write anyway.
    for (const path of [releaseDir(), join(releaseDir(), 'src'), join(releaseDir(), 'src', 'server.mjs')]) expect((await stat(path)).mode & 0o222).toBe(0);
    expect(driver.kind).toBe('process');
    expect(driver.sandboxStatus()).toBeUndefined();
  });

  it('runs the migration jobs beside the data: precheck and unapplied count, migrate stamped with the given time, footprint', async () => {
    expect(await driver.runJob({ type: 'precheck', target: target() })).toBe(1);
    expect(await driver.runJob({ type: 'unapplied-migrations', migrationsDir: target().migrationsDir, databasePath: databasePath() })).toBe(1);
    expect(await driver.runJob({ type: 'database-footprint', databasePath: databasePath() })).toBe(0);
    expect(await driver.runJob({ type: 'migrate', target: target(), now: 1_700_000_000_000 })).toEqual(['0001_init.sql']);
    const db = new Database(databasePath(), { readonly: true });
    try {
      expect(db.prepare('SELECT name, applied_at AS appliedAt FROM _svc_migrations').all()).toEqual([{ name: '0001_init.sql', appliedAt: 1_700_000_000_000 }]);
    } finally {
      db.close();
    }
    expect(await driver.runJob({ type: 'precheck', target: target() })).toBe(0);
    expect(await driver.runJob({ type: 'unapplied-migrations', migrationsDir: target().migrationsDir, databasePath: databasePath() })).toBe(0);
    expect(await driver.runJob({ type: 'database-footprint', databasePath: databasePath() })).toBeGreaterThan(0);
  });

  it('snapshots the database and puts the snapshot back over later writes', async () => {
    const snap = await driver.runJob({ type: 'snapshot', databasePath: databasePath(), snapshotPath: join(root, 'snapshots', 'rel_1.db') });
    expect(snap.hadDatabase).toBe(true);
    expect(snap.sizeBytes).toBeGreaterThan(0);
    const db = new Database(databasePath());
    db.prepare("INSERT INTO notes (text) VALUES ('after the snapshot')").run();
    db.close();
    expect(noteCount()).toBe(1);
    expect(await driver.runJob({ type: 'restore-snapshot', snapshotPath: snap.path, databasePath: databasePath() })).toBeUndefined();
    expect(noteCount()).toBe(0);
  });

  it('starts a candidate unsupervised, checks its health, serves it, then stops the project app', async () => {
    const app = await driver.startCandidate('p', 'rel_1');
    started.push(app);
    expect(driver.current('p')).toBeNull(); // not the project's app until served
    const health = await driver.checkHealth(app, { path: '/healthz', timeoutMs: 10_000 });
    expect(health, JSON.stringify(driver.logs.read('p', {}))).toMatchObject({ ok: true });
    await driver.serve(app);
    expect(driver.current('p')).toBe(app);
    expect(driver.status('p')).toMatchObject({ releaseId: 'rel_1', state: 'running', port: app.port });
    await driver.stop('p');
    expect(driver.current('p')).toBeNull();
    expect(driver.status('p')).toBeNull();
    expect(app.exited).not.toBeNull();
  });

  it('reports a failed health check when the app exits, and starts a release as the served app directly', async () => {
    const app = await driver.startServing('p', 'rel_1');
    started.push(app);
    expect(events.some((e) => e.type === 'started' && e.releaseId === 'rel_1')).toBe(true);
    expect(driver.current('p')).toBe(app);
    await driver.stop('p');
    const health = await driver.checkHealth(app, { path: '/healthz', timeoutMs: 2_000 });
    expect(health).toMatchObject({ ok: false, reason: 'exited' });
  });

  it('unstages the release files', async () => {
    await driver.unstage(releaseDir());
    await expect(access(releaseDir(), constants.F_OK)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

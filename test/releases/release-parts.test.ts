// The parts of the release transaction composed by hand with the sample apps of fixtures/apps:
// lock → snapshot → migrations → start → health → state transition (or restore on failure).
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { ProjectLocks } from '../../src/core/project-lock.js';
import { migrateDatabase } from '../../runner/jobs/apply-migrations.js';
import { prepareReleaseDir, removeReleaseDir } from '../../runner/prepare-release-dir.js';
import { transition, type ReleaseSetState } from '../../src/releases/release-state.js';
import { createSnapshot, restoreSnapshot } from '../../runner/jobs/snapshot.js';
import type { RunningApp } from '../../runner/app-runner.js';
import { checkHealth } from '../../runner/health-check.js';
import { LogStore } from '../../runner/log-store.js';
import { ProcessRunner } from '../../runner/process-runner.js';

const repo = resolve(import.meta.dirname, '..', '..');
const fixtures = join(repo, 'fixtures', 'apps');

let root: string;
let runner: ProcessRunner;
let logs: LogStore;
const apps: RunningApp[] = [];
const releaseDirs: string[] = [];
const dataDir = () => join(root, 'data');
const dbPath = () => join(root, 'data', 'app.db');

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-parts-'));
  logs = new LogStore({ dir: join(root, 'logs') });
  runner = new ProcessRunner({ runsDir: join(root, 'runs'), logs, stopGraceMs: 2_000, tailPollMs: 20 });
});
afterAll(async () => {
  for (const app of apps) await app.stop({ graceMs: 200 });
  for (const dir of releaseDirs) await removeReleaseDir(dir);
  await rm(root, { recursive: true, force: true });
});

/** Extract (copy) a fixture app as release `id` and prepare it. */
async function release(app: string, id: string): Promise<string> {
  const dir = join(root, 'releases', id);
  await cp(join(fixtures, app), dir, { recursive: true });
  await prepareReleaseDir({ releaseDir: dir, platformPackageDir: repo });
  releaseDirs.push(dir);
  return dir;
}

async function start(dir: string, id: string): Promise<{ app: RunningApp; healthy: Awaited<ReturnType<typeof checkHealth>> }> {
  const app = await runner.start({
    projectId: 'p',
    releaseId: id,
    releaseDir: dir,
    entry: 'src/server.mjs',
    dataDir: dataDir(),
    databasePath: dbPath(),
    env: { SLOW_START_DELAY_MS: '5000' },
    secrets: {},
  });
  apps.push(app);
  const healthy = await checkHealth({ host: app.host, port: app.port, path: '/healthz', timeoutMs: 1_500, intervalMs: 50, exited: app.wait() });
  return { app, healthy };
}

const columns = () => {
  const db = new Database(dbPath(), { readonly: true });
  try {
    return (db.prepare('PRAGMA table_info(notes)').all() as { name: string }[]).map((c) => c.name);
  } finally {
    db.close();
  }
};

describe('release transaction parts with the sample apps', () => {
  it('deploys healthy, then rejects bad-migration, crash-on-boot and failing-health while keeping data and the prior release', async () => {
    const locks = new ProjectLocks({ dir: join(root, 'locks'), onStaleLockRecovered: () => undefined });
    let state: ReleaseSetState = { projectSlug: 'demo', releases: [] };

    // 1. healthy: first deploy, no database yet.
    let active = await locks.withLock('p', 'deploy', async () => {
      state = transition(state, { type: 'create-candidate', releaseId: 'rel_1' }).state;
      const dir = await release('healthy', 'rel_1');
      const snapshot = await createSnapshot(dbPath(), join(root, 'snapshots', 'rel_1.db'));
      expect(snapshot.hadDatabase).toBe(false);
      expect(
        (await migrateDatabase({ databasePath: dbPath(), migrationsDir: join(dir, 'migrations'), allowUnsafeMigrations: false, operatorAllowsUnsafe: false }))
          .applied,
      ).toEqual(['0001_init.sql']);
      const { app, healthy } = await start(dir, 'rel_1');
      expect(healthy.ok).toBe(true);
      state = transition(state, { type: 'activate', releaseId: 'rel_1', snapshot }).state;
      return app;
    });
    const db = new Database(dbPath());
    db.prepare("INSERT INTO notes (text) VALUES ('keep me')").run();
    db.close();

    // 2..4: each failing candidate: stop active, snapshot, migrate, start, health → fail → restore, restart prior.
    for (const [app, id, step] of [
      ['bad-migration', 'rel_2', 'migration'],
      ['crash-on-boot', 'rel_3', 'startup'],
      ['failing-health', 'rel_4', 'health'],
    ] as const) {
      active = await locks.withLock('p', 'deploy', async () => {
        state = transition(state, { type: 'create-candidate', releaseId: id }).state;
        const dir = await release(app, id);
        await active.stop();
        const snapshot = await createSnapshot(dbPath(), join(root, 'snapshots', `${id}.db`));
        expect(snapshot.sizeBytes).toBeGreaterThan(0);
        let failedAt: string | null = null;
        try {
          await migrateDatabase({ databasePath: dbPath(), migrationsDir: join(dir, 'migrations'), allowUnsafeMigrations: false, operatorAllowsUnsafe: false });
          const { app: candidate, healthy } = await start(dir, id);
          if (!healthy.ok) {
            failedAt = healthy.reason === 'exited' ? 'startup' : 'health';
            await candidate.stop({ graceMs: 500 });
          }
        } catch (error) {
          expect(isSvcError(error, 'SVC_MIGRATION_FAILED')).toBe(true);
          expect((error as { details: { file: string } }).details.file).toBe('0002_broken.sql');
          failedAt = 'migration';
        }
        expect(failedAt).toBe(step);
        const result = transition(state, { type: 'fail', releaseId: id, step: failedAt as 'migration' | 'startup' | 'health', snapshot, reason: 'test' });
        state = result.state;
        expect(result.effects.map((e) => e.type)).toEqual(['stop-release', 'restore-snapshot', 'start-release', 'route-traffic', 'audit']);
        await restoreSnapshot(snapshot.path, dbPath());
        const { app: prior, healthy } = await start(join(root, 'releases', 'rel_1'), 'rel_1');
        expect(healthy.ok).toBe(true);
        return prior;
      });
      expect(columns()).toEqual(['id', 'text', 'created_at']);
    }
    expect(state.releases.map((r) => `${r.id}:${r.status}`)).toEqual(['rel_1:active', 'rel_2:failed', 'rel_3:failed', 'rel_4:failed']);
    const check = new Database(dbPath(), { readonly: true });
    expect(check.prepare('SELECT text FROM notes').all()).toEqual([{ text: 'keep me' }]);
    check.close();
    expect(logs.read('p', { releaseId: 'rel_3' }).some((e) => e.stream === 'system' && e.line.startsWith('exited with code 1'))).toBe(true);
  });
});

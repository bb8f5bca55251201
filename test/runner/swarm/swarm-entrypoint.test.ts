// The swarm task entrypoint as a real process against a real release endpoint on 127.0.0.1:0,
// without Docker: a fixture app fetched, verified, extracted and served; jobs run and reported.
import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdtemp, readdir, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../../src/core/clock.js';
import { allocatePort } from '../../../runner/allocate-port.js';
import { removeReleaseDir } from '../../../runner/prepare-release-dir.js';
import { mintCredential } from '../../../runner/swarm/release-credentials.js';
import { packFixture } from '../../releases/release-support.js';
import { startReleaseEndpoint, type EndpointFixture } from './release-endpoint-fixture.js';
import {
  makeTaskDirs,
  ownByTask,
  PLATFORM_DIR,
  removeTaskDirs,
  startTask,
  taskEnv,
  writeSecrets,
  type TaskDirs,
  type TaskProcess,
} from './swarm-task-harness.js';

interface Packed {
  path: string;
  digest: string;
}

let packDir: string;
let healthy: Packed;
let broken: Packed;
let endpoint: EndpointFixture;
let dirs: TaskDirs;
const tasks: TaskProcess[] = [];

async function pack(app: string): Promise<Packed> {
  const artifact = await packFixture(app, packDir);
  const path = join(packDir, `${app}.svc.gz`);
  await writeFile(path, artifact.bytes);
  return { path, digest: artifact.digest };
}

beforeAll(async () => {
  packDir = await mkdtemp(join(tmpdir(), 'svc-swarm-pack-'));
  healthy = await pack('healthy');
  broken = await pack('bad-migration');
}, 120_000);
afterAll(async () => {
  await rm(packDir, { recursive: true, force: true });
});

beforeEach(async () => {
  endpoint = await startReleaseEndpoint();
  endpoint.releases.set('rel_1', { path: healthy.path, sha256: healthy.digest });
  endpoint.releases.set('rel_bad', { path: broken.path, sha256: broken.digest });
  dirs = await makeTaskDirs();
});
afterEach(async () => {
  for (const task of tasks.splice(0)) task.kill();
  await endpoint.close();
  await removeTaskDirs(dirs);
});

/** A new task: like swarm's, it gets a fresh app tmpfs (the project volume stays). */
async function run(args: string[], env: Record<string, string>): Promise<TaskProcess> {
  await removeReleaseDir(join(dirs.app, 'release'));
  const task = startTask(args, env);
  tasks.push(task);
  return task;
}

async function get(url: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

/** Poll until the app answers its health path (or the task ends). */
async function healthy200(port: number, task: TaskProcess, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let ended = false;
  void task.exit.then(() => (ended = true));
  while (Date.now() < deadline && !ended) {
    const status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the app never answered 200 on /healthz; task stderr:\n${task.stderr()}`);
}

function migrateJob(jobId: string, releaseId = 'rel_1'): void {
  endpoint.jobs.set(jobId, {
    description: {
      job: {
        type: 'migrate',
        target: { databasePath: '/data/app.db', migrationsDir: 'migrations', allowUnsafeMigrations: false, operatorAllowsUnsafe: false },
        now: 1_700_000_000_000,
      },
      needsRelease: true,
      releaseId,
    },
    results: [],
  });
}

async function runJob(jobId: string, releaseId = 'rel_1', digest = healthy.digest): Promise<{ code: number | null; stderr: string }> {
  await writeSecrets(dirs, endpoint.token('job', jobId));
  const task = await run(['job', jobId], taskEnv(dirs, { origin: endpoint.origin, releaseId, digest }));
  const exit = await task.exit;
  return { code: exit.code, stderr: task.stderr() };
}

describe('swarm entrypoint: serve', () => {
  it('migrates with a job, then serves the fixture from the verified release with @svc-dev/svc/sqlite and its secrets, never the credential', async () => {
    migrateJob('job_m');
    const migrated = await runJob('job_m');
    expect(migrated, migrated.stderr).toMatchObject({ code: 0 });
    expect(endpoint.jobs.get('job_m')!.results).toEqual([{ ok: true, value: ['0001_init.sql'] }]);

    const port = await allocatePort();
    const credential = endpoint.token('release', 'rel_1');
    await writeSecrets(dirs, credential, { API_KEY: 'k-123', SVC_RECOVERY_KEY: 'recovery' });
    const task = await run(['serve', 'dist/server.mjs'], taskEnv(dirs, { origin: endpoint.origin, releaseId: 'rel_1', digest: healthy.digest, port }));
    await healthy200(port, task);

    const app = `http://127.0.0.1:${port}`;
    expect(await get(`${app}/`)).toEqual({ status: 200, body: { app: 'healthy', version: 1, release: 'rel_1' } });
    expect((await get(`${app}/env/API_KEY`)).body).toMatchObject({ value: 'k-123' });
    expect((await get(`${app}/env/SVC_RECOVERY_KEY`)).body).toMatchObject({ value: 'recovery' });
    for (const name of ['SVC_SWARM_SECRETS_DIR', 'SVC_CREDENTIAL', 'CREDENTIAL']) expect((await get(`${app}/env/${name}`)).body).toMatchObject({ value: null });
    const created = await fetch(`${app}/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'from swarm' }),
    });
    expect(created.status).toBe(201);
    expect((await get(`${app}/notes`)).body).toMatchObject({ notes: [{ text: 'from swarm' }] });

    const release = join(dirs.app, 'release');
    expect(await readlink(join(release, 'node_modules', '@svc-dev', 'svc'))).toBe(PLATFORM_DIR);
    expect((await stat(release)).mode & 0o222).toBe(0);
    expect((await stat(join(release, 'dist', 'server.mjs'))).mode & 0o222).toBe(0);
    // Nothing of the download is left in /tmp, and the secrets are where they were.
    expect(await readdir(dirs.tmp)).toEqual([]);
    expect(await readFile(join(dirs.secrets, 'svc.credential'), 'utf8')).toBe(credential);
    expect(JSON.stringify(endpoint.log)).not.toContain(credential.split('.')[2]);
  });

  it('refuses an artifact whose SHA-256 is not the one the spec names, and extracts nothing', async () => {
    await writeSecrets(dirs, endpoint.token('release', 'rel_1'));
    const other = createHash('sha256').update('another release').digest('hex');
    const task = await run(['serve', 'dist/server.mjs'], taskEnv(dirs, { origin: endpoint.origin, releaseId: 'rel_1', digest: other }));
    const exit = await task.exit;
    expect(exit.code).not.toBe(0);
    expect(task.stderr()).toMatch(/^svc-entrypoint: SVC_ARTIFACT_DIGEST_MISMATCH: /m);
    expect(
      await lstat(join(dirs.app, 'release')).then(
        () => true,
        () => false,
      ),
    ).toBe(false);
  });

  it('keeps serving through the lame-duck window after SIGTERM, then stops the app and exits with its status', async () => {
    const port = await allocatePort();
    await writeSecrets(dirs, endpoint.token('release', 'rel_1'));
    const task = await run(
      ['serve', 'dist/server.mjs'],
      taskEnv(dirs, { origin: endpoint.origin, releaseId: 'rel_1', digest: healthy.digest, port, drainMs: 2000 }),
    );
    await healthy200(port, task);
    let exitedAt = 0;
    void task.exit.then(() => (exitedAt = Date.now()));
    const termAt = Date.now();
    process.kill(task.pid, 'SIGTERM');
    const answers: number[] = [];
    while (Date.now() - termAt < 1500) {
      answers.push(
        await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.status,
          () => 0,
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(answers.length).toBeGreaterThan(5);
    expect(answers.every((status) => status === 200)).toBe(true);
    expect(await task.exit).toEqual({ code: 0, signal: null });
    expect(exitedAt - termAt).toBeGreaterThanOrEqual(1900);
    expect(task.stderr()).toMatch(/keeps serving for 2000 ms/);
  });

  it('passes SIGINT on at once and exits with the status the app ended with', async () => {
    const port = await allocatePort();
    await writeSecrets(dirs, endpoint.token('release', 'rel_1'));
    const task = await run(
      ['serve', 'dist/server.mjs'],
      taskEnv(dirs, { origin: endpoint.origin, releaseId: 'rel_1', digest: healthy.digest, port, drainMs: 60_000 }),
    );
    await healthy200(port, task);
    process.kill(task.pid, 'SIGINT');
    // The fixture has no SIGINT handler: node dies of the signal, reported as 128 + 2.
    expect(await task.exit).toEqual({ code: 130, signal: null });
  });

  it('waits for an endpoint that is not listening yet', async () => {
    const key = randomBytes(32);
    const port = await allocatePort();
    const origin = `http://127.0.0.1:${port}`;
    const credential = mintCredential({ key, clock: manualClock(Date.now()), scope: 'release', id: 'rel_1', project: 'prj_1', generation: 1 }).token;
    await writeSecrets(dirs, credential);
    const appPort = await allocatePort();
    const task = await run(['serve', 'dist/server.mjs'], taskEnv(dirs, { origin, releaseId: 'rel_1', digest: healthy.digest, port: appPort }));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await endpoint.close();
    endpoint = await startReleaseEndpoint({ key, port });
    endpoint.releases.set('rel_1', { path: healthy.path, sha256: healthy.digest });
    await healthy200(appPort, task);
  });

  it('refuses a revoked release credential and a secret that names a platform value', async () => {
    endpoint.revoked.add('release:rel_1:1');
    await writeSecrets(dirs, endpoint.token('release', 'rel_1'));
    const revoked = await run(['serve', 'dist/server.mjs'], taskEnv(dirs, { origin: endpoint.origin, releaseId: 'rel_1', digest: healthy.digest }));
    expect((await revoked.exit).code).not.toBe(0);
    expect(revoked.stderr()).toMatch(/^svc-entrypoint: SVC_RELEASE_CREDENTIAL_REVOKED: /m);
    expect(endpoint.log).toContainEqual(expect.objectContaining({ route: 'artifact', status: 401, code: 'SVC_RELEASE_CREDENTIAL_REVOKED' }));

    await writeSecrets(dirs, endpoint.token('release', 'rel_1', { generation: 2 }), { PORT: '80' });
    const reserved = await run(['serve', 'dist/server.mjs'], taskEnv(dirs, { origin: endpoint.origin, releaseId: 'rel_1', digest: healthy.digest }));
    expect((await reserved.exit).code).not.toBe(0);
    expect(reserved.stderr()).toMatch(/SVC_VALIDATION: secret name PORT is reserved by the platform/);
  });
});

describe('swarm entrypoint: jobs', () => {
  async function seedDatabase(rows: string[]): Promise<void> {
    const db = new Database(join(dirs.data, 'app.db'));
    db.exec('CREATE TABLE IF NOT EXISTS items (text TEXT)');
    db.exec('DELETE FROM items');
    for (const row of rows) db.prepare('INSERT INTO items VALUES (?)').run(row);
    db.close();
    await ownByTask(dirs.data);
  }
  function items(): string[] {
    const db = new Database(join(dirs.data, 'app.db'), { readonly: true });
    try {
      return (db.prepare('SELECT text FROM items ORDER BY rowid').all() as { text: string }[]).map((r) => r.text);
    } finally {
      db.close();
    }
  }

  it('round-trips a snapshot: output to the endpoint, input back into the database', async () => {
    await seedDatabase(['a', 'b', 'c']);
    const snapshotPath = join(dirs.root, 'endpoint', 'snap.db');
    endpoint.jobs.set('job_s', {
      description: { job: { type: 'snapshot', databasePath: '/data/app.db' }, needsRelease: false, releaseId: 'rel_1' },
      output: snapshotPath,
      results: [],
    });
    const snap = await runJob('job_s');
    expect(snap, snap.stderr).toMatchObject({ code: 0 });
    const size = (await stat(snapshotPath)).size;
    expect(endpoint.jobs.get('job_s')!.results).toEqual([{ ok: true, value: { sizeBytes: size, hadDatabase: true } }]);

    await seedDatabase(['changed']);
    endpoint.jobs.set('job_r', {
      description: { job: { type: 'restore-snapshot', databasePath: '/data/app.db' }, needsRelease: false, releaseId: 'rel_1' },
      input: snapshotPath,
      results: [],
    });
    const restore = await runJob('job_r');
    expect(restore, restore.stderr).toMatchObject({ code: 0 });
    expect(endpoint.jobs.get('job_r')!.results).toEqual([{ ok: true, value: null }]);
    expect(items()).toEqual(['a', 'b', 'c']);
  });

  it('reports a failing job as its result (exit 0) and the read-only checks as numbers', async () => {
    migrateJob('job_bad', 'rel_bad');
    const failed = await runJob('job_bad', 'rel_bad', broken.digest);
    expect(failed, failed.stderr).toMatchObject({ code: 0 });
    expect(endpoint.jobs.get('job_bad')!.results).toEqual([{ ok: false, code: 'SVC_MIGRATION_FAILED', message: expect.stringContaining('0002_broken.sql') }]);

    endpoint.jobs.set('job_u', {
      description: { job: { type: 'unapplied-migrations', migrationsDir: 'migrations', databasePath: '/data/app.db' }, needsRelease: true, releaseId: 'rel_1' },
      results: [],
    });
    expect((await runJob('job_u')).code).toBe(0);
    expect(endpoint.jobs.get('job_u')!.results).toEqual([{ ok: true, value: 1 }]);
    endpoint.jobs.set('job_f', {
      description: { job: { type: 'database-footprint', databasePath: '/data/app.db' }, needsRelease: false, releaseId: 'rel_1' },
      results: [],
    });
    expect((await runJob('job_f')).code).toBe(0);
    expect(endpoint.jobs.get('job_f')!.results).toEqual([{ ok: true, value: 0 }]);
  });

  it('exits non-zero when its expired credential cannot deliver a result', async () => {
    migrateJob('job_m');
    await writeSecrets(dirs, endpoint.token('job', 'job_m', { lifetimeMs: 1000 }));
    endpoint.clock.advance(1000);
    const task = await run(['job', 'job_m'], taskEnv(dirs, { origin: endpoint.origin, releaseId: 'rel_1', digest: healthy.digest }));
    expect((await task.exit).code).toBe(1);
    expect(task.stderr()).toMatch(/SVC_RELEASE_CREDENTIAL_EXPIRED/);
    expect(endpoint.jobs.get('job_m')!.results).toEqual([]);
  });
});

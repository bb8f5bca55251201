// Real podman: the bucket, recovery and database paths the platform hands an app are container paths
// that exist inside, are writable, and land in the project's directories on the host.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command } from '../../../src/core/command.js';
import { execCommand } from '../../../src/core/exec.js';
import { recoveryEnv } from '../../../src/recovery/platform/recovery-app-env.js';
import { platformBucketEnvironment } from '../../../src/runtime/buckets/platform-environment.js';
import type { RunningApp } from '../../../runner/app-runner.js';
import { buildNodeImage } from '../../../runner/container/build-node-image.js';
import { ContainerRunner } from '../../../runner/container/container-runner.js';
import { checkHealth } from '../../../runner/health-check.js';
import { LogStore } from '../../../runner/log-store.js';
import { podmanGate } from './podman-gate.js';

const IMAGE = 'localhost/svc-node-test:paths';
const gate = podmanGate('container paths tests');

describe.skipIf(gate.skip)('container paths (real podman)', () => {
  let root: string;
  let runner: ContainerRunner;
  const apps: RunningApp[] = [];

  beforeAll(async () => {
    gate.assertPresent();
    root = await mkdtemp(join(tmpdir(), 'svc-container-paths-'));
    await buildNodeImage({ image: IMAGE });
    runner = new ContainerRunner({
      image: IMAGE,
      runsDir: join(root, 'runs'),
      logs: new LogStore({ dir: join(root, 'logs') }),
      stopGraceMs: 2000,
      tailPollMs: 20,
    });
  }, 120_000);

  afterAll(async () => {
    for (const app of apps.splice(0)) await app.stop({ graceMs: 500 });
    await execCommand(command('podman', ['--runtime', 'runc', 'rmi', '--force', IMAGE]));
    if (root) await rm(root, { recursive: true, force: true });
  }, 60_000);

  it('an app writes to SVC_BUCKET_DIR, SVC_BUCKET_CATALOG, SVC_RECOVERY_DIR and its database directory', async () => {
    const projectId = `p-paths-${process.pid}`;
    const projectRoot = join(root, 'project');
    const dataDir = join(projectRoot, 'data');
    const epochDir = join(projectRoot, 'recovery', 'epoch-0001');
    await mkdir(epochDir, { recursive: true });
    await writeFile(join(epochDir, 'manifest'), 'written by the platform');
    const releaseDir = join(projectRoot, 'releases', 'rel_1');
    await cp(join(import.meta.dirname, 'apps'), releaseDir, { recursive: true });
    const key = new Uint8Array(32).fill(0xff); // base64 "//////…": key material that looks like a path
    const platformEnv = { ...platformBucketEnvironment(projectId, dataDir, 'x'.repeat(32)), ...recoveryEnv(epochDir, key) };

    const app = await runner.start({
      projectId,
      releaseId: 'rel_1',
      releaseDir,
      entry: 'paths-probe.mjs',
      dataDir,
      databasePath: join(dataDir, 'db', 'app.db'),
      env: {},
      secrets: {},
      platformEnv,
    });
    apps.push(app);
    expect((await checkHealth({ host: app.host, port: app.port, path: '/', timeoutMs: 20_000, exited: app.wait() })).ok).toBe(true);
    const report = (await (await fetch(`http://127.0.0.1:${app.port}/`)).json()) as Record<string, unknown>;

    expect(report).toEqual({
      env: {
        SVC_DATA_DIR: '/data',
        SVC_DATABASE_PATH: '/data/db/app.db',
        SVC_BUCKET_DIR: '/data/buckets',
        SVC_BUCKET_CATALOG: '/data/buckets/catalog.sqlite',
        SVC_BUCKET_PREFIX: `projects/${projectId}/`,
        SVC_RECOVERY_DIR: '/recovery',
        SVC_RECOVERY_KEY: Buffer.from(key).toString('base64'),
      },
      writeBucket: 'ok',
      writeRecovery: 'ok',
      recoveryListing: ['manifest', 'segment-1'],
      writeDatabaseDir: 'ok',
    });
    expect(await readFile(join(dataDir, 'buckets', 'objects', 'hello.txt'), 'utf8')).toBe('bucket object');
    expect(await readFile(join(dataDir, 'buckets', 'catalog.sqlite'), 'utf8')).toBe('catalog');
    expect(await readFile(join(epochDir, 'segment-1'), 'utf8')).toBe('journal');
    expect(await readFile(join(dataDir, 'db', 'app.db'), 'utf8')).toBe('db');
    await app.stop();
  }, 60_000);
});

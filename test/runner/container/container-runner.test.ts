// Real podman: hardening observed from inside the container, and the healthy fixture deployed into one.
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAndExtractArtifact, packArtifact } from '../../../src/artifacts/index.js';
import { command } from '../../../src/core/command.js';
import { execCommand } from '../../../src/core/exec.js';
import type { AppStartSpec, RunningApp } from '../../../runner/app-runner.js';
import { buildNodeImage } from '../../../runner/container/build-node-image.js';
import { ContainerRunner } from '../../../runner/container/container-runner.js';
import { checkHealth } from '../../../runner/health-check.js';
import { LogStore } from '../../../runner/log-store.js';
import { podmanGate } from './podman-gate.js';

const IMAGE = 'localhost/svc-node-test:vitest';
const fixtures = join(import.meta.dirname, '../../../fixtures/apps/healthy');

const gate = podmanGate('container runner tests');

describe.skipIf(gate.skip)('ContainerRunner (real podman)', () => {
  let root: string;
  let runner: ContainerRunner;
  let logs: LogStore;
  const apps: RunningApp[] = [];

  beforeAll(async () => {
    gate.assertPresent();
    root = await mkdtemp(join(tmpdir(), 'svc-container-'));
    await buildNodeImage({ image: IMAGE });
    logs = new LogStore({ dir: join(root, 'logs') });
    runner = new ContainerRunner({
      image: IMAGE,
      runsDir: join(root, 'runs'),
      logs,
      limits: { pids: 48, memory: '192m', cpus: '0.5' },
      stopGraceMs: 3000,
      tailPollMs: 20,
      baseEnv: { PATH: process.env.PATH, PROBE_SECRET: 'host-value-not-passed', SVC_PLATFORM_MASTER_KEY: 'master-key' },
    });
  }, 120_000);

  afterAll(async () => {
    for (const app of apps.splice(0)) await app.stop({ graceMs: 500 });
    await execCommand(command('podman', ['--runtime', 'runc', 'rmi', '--force', IMAGE]));
    if (root) await rm(root, { recursive: true, force: true });
  }, 60_000);

  function spec(name: string, releaseDir: string, extra: Partial<AppStartSpec> = {}): AppStartSpec {
    return {
      projectId: `p-${name}`,
      releaseId: 'rel_1',
      releaseDir,
      entry: 'probe.mjs',
      dataDir: join(root, name, 'data'),
      databasePath: join(root, name, 'data', 'app.db'),
      env: {},
      secrets: {},
      ...extra,
    };
  }

  it('runs read-only, without capabilities, as non-root, with enforced limits and name-only secrets', async () => {
    const releaseDir = join(root, 'probe', 'release');
    await cp(join(import.meta.dirname, 'apps'), releaseDir, { recursive: true });
    const app = await runner.start(spec('probe', releaseDir, { secrets: { PROBE_SECRET: 'secret-for-app' } }));
    apps.push(app);
    const health = await checkHealth({ host: app.host, port: app.port, path: '/', timeoutMs: 20_000, exited: app.wait() });
    expect(health.ok).toBe(true);
    expect(app.host).toBe('127.0.0.1');
    const report = (await (await fetch(`http://127.0.0.1:${app.port}/`)).json()) as Record<string, unknown>;
    expect(report).toMatchObject({
      uid: 10001,
      gid: 10001,
      capEff: '0000000000000000',
      capBnd: '0000000000000000',
      noNewPrivs: '1',
      writeRoot: 'EROFS',
      writeRelease: 'EROFS',
      writeData: 'ok',
      writeTmp: 'ok',
      pidsMax: '48',
      memoryMax: String(192 * 1024 * 1024),
      secret: 'secret-for-app',
      masterKey: null,
      dataDir: '/data',
      pid1: expect.stringMatching(/^(catatonit|podman-init)$/),
    });
    // The limits are enforced, not only configured: more tasks than pids.max fail with EAGAIN, and a
    // child allocating past memory.max is killed by the kernel.
    const fork = (await (await fetch(`http://127.0.0.1:${app.port}/fork`)).json()) as { started: number; failed: string[] };
    expect(fork.failed.length).toBeGreaterThan(0);
    expect(fork.failed).toContain('EAGAIN');
    const hog = (await (await fetch(`http://127.0.0.1:${app.port}/hog`)).json()) as { code: number | null; signal: string | null };
    expect(hog.signal).toBe('SIGKILL');
    // conmon marks the OOM kill with an empty file `oom` in its working directory: the run's own
    // directory, never the control plane's (here the repository root).
    await expect.poll(() => existsSync(join(app.record().runDir!, 'oom')), { timeout: 5000 }).toBe(true);
    // The secret value never appears in the recorded podman command line.
    const name = app.record().containerId!;
    const inspect = await execCommand(command('podman', ['--runtime', 'runc', 'container', 'inspect', '--format', '{{json .Config.CreateCommand}}', name]));
    expect(inspect.stdout).toContain('PROBE_SECRET');
    expect(inspect.stdout).not.toContain('secret-for-app');
    // Stop: SIGTERM reaches the app through --init, and the container is removed.
    const exit = await app.stop();
    expect(exit.code).toBe(0);
    expect(await readFile(join(root, 'probe', 'data', 'got-sigterm'), 'utf8')).toBe('yes');
    const gone = await execCommand(command('podman', ['--runtime', 'runc', 'container', 'exists', name]));
    expect(gone.exitCode).toBe(1);
  }, 60_000);

  it('deploys the healthy fixture into a hardened container and serves its health route on loopback', async () => {
    const appDir = join(root, 'healthy-src');
    await cp(fixtures, appDir, { recursive: true });
    // What `svc build src dist` produces for this fixture: the sources copied to dist/.
    await cp(join(appDir, 'src'), join(appDir, 'dist'), { recursive: true });
    const packed = await packArtifact(appDir);
    const releaseDir = join(root, 'healthy', 'release');
    const decoded = await decodeAndExtractArtifact(packed.bytes, releaseDir, { expectedDigest: packed.digest });
    const app = await runner.start(spec('healthy', releaseDir, { entry: decoded.config.entry, secrets: { FIXTURE_SECRET: 's3' }, env: { GREETING: 'hello' } }));
    apps.push(app);
    const health = await checkHealth({ host: app.host, port: app.port, path: decoded.config.health.path, timeoutMs: 20_000, exited: app.wait() });
    expect(health.ok).toBe(true);
    const body = (await (await fetch(`http://127.0.0.1:${app.port}${decoded.config.health.path}`)).json()) as { ok: boolean };
    expect(body.ok).toBe(true);
    const secret = (await (await fetch(`http://127.0.0.1:${app.port}/env/FIXTURE_SECRET`)).json()) as { value: string };
    expect(secret.value).toBe('s3');
    await app.stop();
    expect(app.exited).not.toBeNull();
  }, 60_000);

  it('re-adopts a running container after a detach, then stops and removes it', async () => {
    const releaseDir = join(root, 'adopt', 'release');
    await cp(join(import.meta.dirname, 'apps'), releaseDir, { recursive: true });
    const app = await runner.start(spec('adopt', releaseDir));
    expect((await checkHealth({ host: app.host, port: app.port, timeoutMs: 20_000, exited: app.wait() })).ok).toBe(true);
    const record = app.record();
    app.detach();
    const adopted = await runner.adopt(record);
    expect(adopted).not.toBeNull();
    apps.push(adopted!);
    await adopted!.stop({ graceMs: 1000 });
    expect(await runner.adopt(record)).toBeNull();
    expect(existsSync(record.runDir!)).toBe(false);
  }, 60_000);
});

// The local provider behind the real bridge: staged releases, health-gated switch, stop, abort,
// and (when podman works) the same through the hardened container runner.
import { existsSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { command } from '../../../src/core/command.js';
import { execCommand } from '../../../src/core/exec.js';
import { buildNodeImage } from '../../../runner/container/build-node-image.js';
import { ContainerRunner } from '../../../runner/container/container-runner.js';
import { LogStore } from '../../../runner/log-store.js';
import { ProcessRunner } from '../../../runner/process-runner.js';
import { createDeploymentProviderHandler } from '../../../runner/provider/create-deployment-provider-handler.js';
import { createHttpDeploymentProvider } from '../../../runner/provider/create-http-deployment-provider.js';
import { FenceStore } from '../../../runner/provider/fence-store.js';
import { fencedProvider } from '../../../runner/provider/fenced-provider.js';
import { createLocalProvider, type LocalProvider } from '../../../runner/provider/local-provider.js';
import type { AppRunner } from '../../../runner/app-runner.js';
import type { ProviderArtifact, ReconcileRequest } from '../../../runner/provider/provider-contract.js';
import { podmanGate } from '../container/podman-gate.js';
import { packedFixtureWithMigrations } from './fixture-variants.js';
import { listen, packedFixture, TOKEN } from './provider-helpers.js';

let dir: string;
const artifacts: Record<string, ProviderArtifact> = {};
const closers: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-local-provider-'));
  for (const name of ['healthy', 'healthy-v2']) artifacts[name] = await packedFixture(name);
  // Deploys now migrate the database: releases after healthy-v2 must carry its migration history.
  for (const name of ['crash-on-boot', 'slow-start']) artifacts[name] = await packedFixtureWithMigrations(name, 'healthy-v2');
}, 60_000);
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
}, 30_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

function req(fence: number, fixture: string | null, signal = new AbortController().signal): ReconcileRequest {
  return {
    operation: { projectId: 'prj_1', id: `op_${fence}`, fence },
    desired: { generation: fence, state: fixture ? 'running' : 'stopped', releaseId: fixture ? `rel_${fence}` : null },
    artifact: fixture ? artifacts[fixture]! : null,
    signal,
  };
}

async function setup(
  name: string,
  runner: (logs: LogStore) => AppRunner,
): Promise<{ local: LocalProvider; client: ReturnType<typeof createHttpDeploymentProvider>; root: string }> {
  const root = join(dir, name);
  const logs = new LogStore({ dir: join(root, 'logs') });
  const local = createLocalProvider({
    runner: runner(logs),
    rootDir: join(root, 'projects'),
    drainMs: 2000,
    secrets: async () => ({ FIXTURE_SECRET: 'from-provider-store' }),
  });
  closers.push(() => local.close());
  const fences = new FenceStore(join(root, 'fences.db'));
  closers.push(() => fences.close());
  const server = await listen(createDeploymentProviderHandler({ provider: fencedProvider(local, fences), token: TOKEN, maxArtifactBytes: 16 * 1024 * 1024 }));
  closers.push(server.close);
  return { local, client: createHttpDeploymentProvider({ baseUrl: server.url, token: TOKEN, retryDelayMs: 1, maxAttempts: 2 }), root };
}

async function get(pointer: { host: string | null; port: number | null }, path: string): Promise<unknown> {
  return (await fetch(`http://${pointer.host}:${pointer.port}${path}`)).json();
}

describe('local provider (process runner) behind the bridge', () => {
  it('switches only to healthy releases, keeps the old one on failure, stops, and honours abort', async () => {
    const { local, client, root } = await setup('process', (logs) => new ProcessRunner({ runsDir: join(dir, 'process', 'runs'), logs, stopGraceMs: 2000 }));
    await client.reconcile(req(1, 'healthy'));
    const first = local.active('prj_1')!;
    expect(first).toMatchObject({ generation: 1, releaseId: 'rel_1', previousReleaseId: null });
    expect(await get(first, '/healthz')).toMatchObject({ ok: true, version: 1 });
    expect(await get(first, '/env/FIXTURE_SECRET')).toMatchObject({ value: 'from-provider-store' });

    await client.reconcile(req(2, 'healthy-v2'));
    const second = local.active('prj_1')!;
    expect(second).toMatchObject({ generation: 2, releaseId: 'rel_2', previousReleaseId: 'rel_1' });
    expect(await get(second, '/healthz')).toMatchObject({ ok: true, version: 2 });
    await expect(fetch(`http://${first.host}:${first.port}/healthz`)).rejects.toThrow(); // old generation drained

    await expect(client.reconcile(req(3, 'crash-on-boot'))).rejects.toMatchObject({ code: 'SVC_HEALTH_CHECK_FAILED' });
    expect(local.active('prj_1')).toEqual(second);
    expect(await get(second, '/healthz')).toMatchObject({ version: 2 });

    const controller = new AbortController();
    const pending = client.reconcile(req(4, 'slow-start', controller.signal));
    await new Promise((r) => setTimeout(r, 700));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'SVC_PROVIDER_ABORTED' });
    // The provider notices the closed connection, stops the candidate and leaves the pointer alone.
    const deadline = Date.now() + 5000;
    while (existsSync(join(root, 'projects', 'prj_1', 'releases', 'rel_4')) === false && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1500));
    expect(local.active('prj_1')).toEqual(second);
    expect(await get(second, '/healthz')).toMatchObject({ version: 2 });
    expect(readdirSync(join(root, 'runs'))).toHaveLength(1); // only rel_2 runs: the aborted candidate was stopped

    await client.reconcile(req(5, null));
    expect(local.active('prj_1')).toMatchObject({ generation: 5, releaseId: null, previousReleaseId: 'rel_2' });
    await expect(fetch(`http://${second.host}:${second.port}/healthz`)).rejects.toThrow();
    // Rule 9: only releases referenced by the active or rollback pointer survive a collection.
    expect(existsSync(join(root, 'projects', 'prj_1', 'releases', 'rel_2'))).toBe(true);
  }, 60_000);
});

describe('local provider: apps embedding the svc runtime', () => {
  it('links the platform package into each release (@svc-dev/svc/runtime resolves) and keeps releases read-only', async () => {
    const { local, client, root } = await setup('runtime', (logs) => new ProcessRunner({ runsDir: join(dir, 'runtime', 'runs'), logs, stopGraceMs: 2000 }));
    const demo = await packedFixture('runtime-demo');
    await client.reconcile({
      operation: { projectId: 'prj_rt', id: 'op_rt1', fence: 1 },
      desired: { generation: 1, state: 'running', releaseId: 'rel_rt1' },
      artifact: demo,
      signal: new AbortController().signal,
    });
    const pointer = local.active('prj_rt')!;
    const health = await fetch(`http://${pointer.host}:${pointer.port}/healthz`);
    expect(health.status).toBe(200);
    const releaseDir = join(root, 'projects', 'prj_rt', 'releases', 'rel_rt1');
    expect(lstatSync(join(releaseDir, 'node_modules', '@svc-dev', 'svc')).isSymbolicLink()).toBe(true);
    expect(statSync(releaseDir).mode & 0o222).toBe(0);
    // Stopping and collecting removes read-only release directories that are no longer referenced.
    await client.reconcile({
      operation: { projectId: 'prj_rt', id: 'op_rt2', fence: 2 },
      desired: { generation: 2, state: 'running', releaseId: 'rel_rt2' },
      artifact: demo,
      signal: new AbortController().signal,
    });
    await client.reconcile({
      operation: { projectId: 'prj_rt', id: 'op_rt3', fence: 3 },
      desired: { generation: 3, state: 'running', releaseId: 'rel_rt3' },
      artifact: demo,
      signal: new AbortController().signal,
    });
    expect(existsSync(releaseDir)).toBe(false);
  }, 60_000);
});

const podman = podmanGate('local provider (container runner)');

describe.skipIf(podman.skip)('local provider (container runner) behind the bridge', () => {
  const image = 'localhost/svc-node-test:provider';
  beforeAll(() => {
    podman.assertPresent();
    return buildNodeImage({ image });
  }, 120_000);
  afterAll(() => execCommand(command('podman', ['--runtime', 'runc', 'rmi', '--force', image])), 60_000);

  it('converges the healthy fixture into a hardened container', async () => {
    const { local, client } = await setup(
      'container',
      (logs) => new ContainerRunner({ image, runsDir: join(dir, 'container', 'runs'), logs, stopGraceMs: 2000 }),
    );
    await client.reconcile(req(1, 'healthy'));
    const pointer = local.active('prj_1')!;
    expect(local.kind).toBe('local-container');
    expect(await get(pointer, '/healthz')).toMatchObject({ ok: true });
    expect(await get(pointer, '/env/FIXTURE_SECRET')).toMatchObject({ value: 'from-provider-store' });
    await client.reconcile(req(2, null));
    await expect(fetch(`http://${pointer.host}:${pointer.port}/healthz`)).rejects.toThrow();
  }, 60_000);
});

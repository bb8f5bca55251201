// Fault test: the provider process is killed with -9; each supervisor notices the
// lost control connection, stops its runtime (sandbox / process group / container), verifies it gone and
// removes the fence.
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execCommand } from '../../../src/core/exec.js';
import { buildNodeImage, DEFAULT_CONTAINER_IMAGE } from '../../../runner/container/build-node-image.js';
import { buildImageExistsCommand, defaultPodmanGlobal } from '../../../runner/container/podman-args.js';
import { createHttpDeploymentProvider } from '../../../runner/provider/create-http-deployment-provider.js';
import type { ProviderArtifact } from '../../../runner/provider/provider-contract.js';
import { listFences } from '../../../runner/supervision/fence-file.js';
import { processGroupAlive, runtimeAlive, supervisorAlive } from '../../../runner/supervision/runtime-probe.js';
import type { ActivePointer } from '../../../runner/provider/local-provider.js';
import { requireComponents } from '../../support/require-components.js';
import { podmanGate } from '../container/podman-gate.js';
import { packedFixture, TOKEN } from '../provider/provider-helpers.js';
import {
  appPids,
  fenceOrderMonitor,
  isStopped,
  passableTempDir,
  reconcileRequest,
  sandboxComponents,
  startProvider,
  waitFor,
  type ProviderProcess,
} from './supervision-helpers.js';

const sandboxGate = requireComponents('supervised sandbox (controller killed)', sandboxComponents);
/** The process-runner tests pin SVC_SANDBOX=off: they follow an unsandboxed app's process group. */
const UNSANDBOXED = { SVC_SANDBOX: 'off' };

let dir: string;
let healthy: ProviderArtifact;
const providers: ProviderProcess[] = [];

beforeAll(async () => {
  dir = await passableTempDir('svc-supervision-kill-');
  healthy = await packedFixture('healthy');
}, 60_000);
afterEach(async () => {
  for (const p of providers.splice(0)) p.child.kill('SIGKILL');
  for (const sub of ['sandbox', 'process', 'hung', 'container'])
    await waitFor(() => listFences(join(dir, sub, 'runtime-fences')).length === 0, 30_000, 'supervisors cleaned up');
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }));

describe.skipIf(sandboxGate.skip)('controller killed with -9 (sandbox runner, the default)', () => {
  beforeAll(() => sandboxGate.assertPresent());

  it('the supervisor stops the sandbox and removes the fence only once init and launcher are gone', async () => {
    const dataDir = join(dir, 'sandbox');
    const provider = await startProvider(dataDir, { SVC_SUPERVISOR_LEASE_MS: '30000' });
    providers.push(provider);
    const client = createHttpDeploymentProvider({ baseUrl: provider.url, token: TOKEN, retryDelayMs: 1, maxAttempts: 2 });
    await client.reconcile(reconcileRequest('prj_sb', 1, healthy));

    const [stored] = listFences(join(dataDir, 'runtime-fences'), 'prj_sb');
    const fence = stored!.fence!;
    const runtime = fence.runtime!;
    if (runtime.kind !== 'sandbox') throw new Error(`expected a sandbox runtime, got ${runtime.kind}`);
    expect(await runtimeAlive(runtime)).toBe(true);
    const pointer = JSON.parse(readFileSync(join(dataDir, 'projects', 'prj_sb', 'active.json'), 'utf8')) as ActivePointer;
    expect(await (await fetch(`http://${pointer.host}:${pointer.port}/healthz`)).json()).toMatchObject({ ok: true });
    expect(appPids('prj_sb')).toHaveLength(1);
    if (process.getuid?.() === 0) {
      // As root the app runs under the uid the node's fence database holds for the project.
      const db = new Database(join(dataDir, 'fences.db'), { readonly: true });
      const row = db.prepare('SELECT uid FROM provider_uids WHERE project_id = ?').get('prj_sb') as { uid: number };
      db.close();
      expect(row.uid).toBeGreaterThanOrEqual(200_000);
      expect(readFileSync(`/proc/${runtime.initPid}/status`, 'utf8')).toMatch(new RegExp(`^Uid:\\s+${row.uid}\\s`, 'm'));
    }

    const order = fenceOrderMonitor(stored!.path, runtime);
    provider.child.kill('SIGKILL');
    const killedAt = Date.now();
    try {
      await waitFor(() => !existsSync(stored!.path), 8000, 'fence removed');
      await waitFor(() => !supervisorAlive(fence.supervisor.pid, fence.supervisor.startTime), 8000, 'supervisor exited');
    } finally {
      await order.stop();
    }
    expect(order.violations()).toBe(0);
    expect(await runtimeAlive(runtime)).toBe(false);
    expect(Date.now() - killedAt).toBeLessThan(fence.lease.expiresAt - killedAt);
    expect(appPids('prj_sb')).toEqual([]);
  }, 60_000);
});

describe('controller killed with -9 (process runner, SVC_SANDBOX=off)', () => {
  it('the supervisor stops the app process group and clears the fence', async () => {
    const dataDir = join(dir, 'process');
    // A 30 s lease: cleanup within a few seconds can only come from the lost control connection.
    const provider = await startProvider(dataDir, { SVC_SUPERVISOR_LEASE_MS: '30000', ...UNSANDBOXED });
    providers.push(provider);
    expect(provider.output()).toContain('SVC_SANDBOX=off');
    const client = createHttpDeploymentProvider({ baseUrl: provider.url, token: TOKEN, retryDelayMs: 1, maxAttempts: 2 });
    await client.reconcile(reconcileRequest('prj_a', 1, healthy));

    const [stored] = listFences(join(dataDir, 'runtime-fences'), 'prj_a');
    const fence = stored!.fence!;
    expect(fence.runtime).toMatchObject({ kind: 'process' });
    const pgid = fence.runtime!.kind === 'process' ? fence.runtime!.pgid : 0;
    expect(processGroupAlive(pgid)).toBe(true);
    expect(appPids('prj_a')).toEqual([pgid]);
    expect(supervisorAlive(fence.supervisor.pid, fence.supervisor.startTime)).toBe(true);
    // The bridge token stays in the provider: the supervisor gets an allow-listed environment.
    expect(readFileSync(`/proc/${fence.supervisor.pid}/environ`, 'utf8')).not.toContain('SVC_PROVIDER_TOKEN');

    provider.child.kill('SIGKILL');
    const killedAt = Date.now();
    await waitFor(() => !processGroupAlive(pgid), 8000, 'app process group gone');
    await waitFor(() => !existsSync(stored!.path), 8000, 'fence removed');
    await waitFor(() => !supervisorAlive(fence.supervisor.pid, fence.supervisor.startTime), 8000, 'supervisor exited');
    expect(Date.now() - killedAt).toBeLessThan(fence.lease.expiresAt - killedAt);
    expect(appPids('prj_a')).toEqual([]);
  }, 60_000);
});

describe('hung controller (lease loss)', () => {
  it('a supervisor whose lease is no longer renewed stops its app although the connection stays open', async () => {
    const dataDir = join(dir, 'hung');
    const provider = await startProvider(dataDir, { SVC_SUPERVISOR_LEASE_MS: '2000', ...UNSANDBOXED });
    providers.push(provider);
    const client = createHttpDeploymentProvider({ baseUrl: provider.url, token: TOKEN, retryDelayMs: 1, maxAttempts: 2 });
    await client.reconcile(reconcileRequest('prj_h', 1, healthy));
    const [stored] = listFences(join(dataDir, 'runtime-fences'), 'prj_h');
    const fence = stored!.fence!;
    const pgid = fence.runtime!.kind === 'process' ? fence.runtime!.pgid : 0;

    // Renewals keep it alive past the first lease while the controller runs.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(processGroupAlive(pgid)).toBe(true);
    const renewed = listFences(join(dataDir, 'runtime-fences'), 'prj_h')[0]!.fence!;
    expect(renewed.lease.expiresAt).toBeGreaterThan(fence.lease.expiresAt);

    provider.child.kill('SIGSTOP');
    try {
      await waitFor(() => !processGroupAlive(pgid), 8000, 'app stopped after lease loss');
      await waitFor(() => !existsSync(stored!.path), 5000, 'fence removed');
      expect(isStopped(provider.child.pid!)).toBe(true); // the controller never let go: the lease did it
    } finally {
      provider.child.kill('SIGKILL');
    }
  }, 60_000);
});

const podman = podmanGate('supervised container (controller killed)');

describe.skipIf(podman.skip)('controller killed with -9 (container runner)', () => {
  // A fresh machine has no image yet: build it (as `npm run build:image` does) rather than skip.
  beforeAll(async () => {
    podman.assertPresent();
    const exists = await execCommand(buildImageExistsCommand(defaultPodmanGlobal, DEFAULT_CONTAINER_IMAGE));
    if (exists.exitCode !== 0) await buildNodeImage({ image: DEFAULT_CONTAINER_IMAGE });
  }, 180_000);

  it('the supervisor removes the container and clears the fence', async () => {
    const dataDir = join(dir, 'container');
    const provider = await startProvider(dataDir, { SVC_SUPERVISOR_LEASE_MS: '30000', SVC_RUNNER: 'container', SVC_CONTAINER_IMAGE: DEFAULT_CONTAINER_IMAGE });
    providers.push(provider);
    const client = createHttpDeploymentProvider({ baseUrl: provider.url, token: TOKEN, retryDelayMs: 1, maxAttempts: 2 });
    await client.reconcile(reconcileRequest('prj_ct', 1, healthy));
    const [stored] = listFences(join(dataDir, 'runtime-fences'), 'prj_ct');
    const runtime = stored!.fence!.runtime!;
    expect(runtime).toMatchObject({ kind: 'container' });
    expect(await runtimeAlive(runtime)).toBe(true);

    provider.child.kill('SIGKILL');
    const killedAt = Date.now();
    await waitFor(async () => (await runtimeAlive(runtime)) === false, 20_000, 'container removed');
    await waitFor(() => !existsSync(stored!.path), 5000, 'fence removed');
    expect(Date.now() - killedAt).toBeLessThan(stored!.fence!.lease.expiresAt - killedAt);

    // Restart from durable state: the next provider starts the active release in a new container.
    const restarted = await startProvider(dataDir, { SVC_SUPERVISOR_LEASE_MS: '30000', SVC_RUNNER: 'container', SVC_CONTAINER_IMAGE: DEFAULT_CONTAINER_IMAGE });
    providers.push(restarted);
    const pointer = JSON.parse(readFileSync(join(dataDir, 'projects', 'prj_ct', 'active.json'), 'utf8')) as { host: string; port: number };
    expect(await (await fetch(`http://${pointer.host}:${pointer.port}/healthz`)).json()).toMatchObject({ ok: true });
    const [again] = listFences(join(dataDir, 'runtime-fences'), 'prj_ct');
    expect(again!.fence!.runtime).toMatchObject({ kind: 'container' });
    expect(again!.fence!.runId).not.toBe(stored!.fence!.runId);
  }, 90_000);
});

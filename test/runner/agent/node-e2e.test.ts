// The packaged runner end to end, every part a separate process on loopback: the control plane
// (svc-platform), `svc-runner provider` with SVC_RUNNER=container (hardened podman) and `svc-runner agent`
// talking to that bridge. Enroll → restart without the token → place → deploy → upgrade → stop, then
// lease loss: the agent is killed mid-reconcile, the next one gets the operation with a higher fence and
// an observation under the old fence is rejected. Last, a node without a bridge runs its apps sandboxed.
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildNodeImage, DEFAULT_CONTAINER_IMAGE } from '../../../runner/container/build-node-image.js';
import type { ActivePointer } from '../../../runner/provider/local-provider.js';
import { listFences } from '../../../runner/supervision/fence-file.js';
import { command } from '../../../src/core/command.js';
import { execCommand } from '../../../src/core/exec.js';
import {
  generationStatusSchema,
  nodeCredentialsFileSchema,
  nodeListSchema,
  registrationTokenSchema,
  type GenerationStatus,
} from '../../../src/nodes/contract.js';
import { bootstrapAccount, type TestAccount } from '../../support/account.js';
import { requireComponents, sandboxComponents } from '../../support/require-components.js';
import { startPlatform, type StartedPlatform } from '../../support/start-platform.js';
import { eventually, packFixture, removeDataDir, type Artifact } from '../../releases/release-support.js';
import { podmanComponent } from '../container/podman-gate.js';
import { projectContainers, removeProjectContainers, startRunner, type RunnerProcess } from './runner-processes.js';
import { postRelease } from '../../support/post-release.js';

// The bridge's provider runs containers; the last node runs its apps in the default sandbox.
const gate = requireComponents('runner node e2e', [podmanComponent(), ...sandboxComponents()]);

const PROVIDER_TOKEN = randomBytes(24).toString('hex');
const NODE_ID = 'node-e2e-1';
let work: string;
let platform: StartedPlatform;
let account: TestAccount;
let provider: Awaited<ReturnType<typeof startRunner>>;
let providerUrl: string;
let agent: RunnerProcess | undefined;
let projectId = '';
let leaseProjectId = '';
let localProjectId = '';
let localAgent: RunnerProcess | undefined;
const art: Record<string, Artifact> = {};
const credentialsPath = () => join(work, 'node', 'credentials.json');
const providerData = () => join(work, 'provider');

function agentEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    SVC_CONTROL_URL: platform.url,
    SVC_RUNNER_NODE_ID: NODE_ID,
    SVC_RUNNER_REGION: 'eu-1',
    SVC_RUNNER_LABELS: 'zone=a',
    SVC_RUNNER_CREDENTIALS: credentialsPath(),
    SVC_PROVIDER_URL: providerUrl,
    SVC_PROVIDER_TOKEN: PROVIDER_TOKEN,
    SVC_RUNNER_RETRY_DELAY_MS: '50',
    SVC_RUNNER_TIMEOUT_MS: '120000',
    ...extra,
  };
}
const startAgent = (extra: Record<string, string> = {}) => startRunner(['agent'], agentEnv(extra), /svc-runner agent: node \S+ ready/);

function upload(artifact: Artifact, key: string, wait = true, project = projectId): Promise<Response> {
  return postRelease(platform.url, account.accessToken, project, artifact, { key, ...(wait ? {} : { wait: false }) });
}
const generations = async (project = projectId): Promise<GenerationStatus> =>
  generationStatusSchema.parse(await account.api('GET', `/api/projects/${project}/generations`));
const pointer = async (project = projectId): Promise<ActivePointer> =>
  JSON.parse(await readFile(join(providerData(), 'projects', project, 'active.json'), 'utf8')) as ActivePointer;
async function health(project = projectId): Promise<{ ok: boolean; version: number }> {
  const p = await pointer(project);
  return (await (await fetch(`http://${p.host}:${p.port}/healthz`)).json()) as { ok: boolean; version: number };
}
/** Wait until the node observed the desired generation (and return the status). */
const observedDesired = (timeoutMs = 90_000, project = projectId) =>
  eventually(async () => {
    const g = await generations(project);
    return g.desired && g.observed?.generation === g.desired.generation && g.observed.state === g.desired.state ? g : null;
  }, timeoutMs);
const diagnostics = () =>
  `\n--- agent ---\n${agent?.output().slice(-3000) ?? ''}\n--- provider ---\n${provider?.output().slice(-3000) ?? ''}\n--- platform ---\n${platform?.logs().slice(-3000) ?? ''}`;

describe.skipIf(gate.skip)('svc-runner agent + provider bridge + control plane (separate processes)', () => {
  beforeAll(async () => {
    gate.assertPresent();
    work = await mkdtemp(join(tmpdir(), 'svc-node-e2e-'));
    // The local node's data directory is inside: its sandboxed apps (a uid of their own) must pass through.
    await chmod(work, 0o711);
    const exists = await execCommand(command('podman', ['--runtime', 'runc', 'image', 'exists', DEFAULT_CONTAINER_IMAGE]));
    if (exists.exitCode !== 0) await buildNodeImage({ image: DEFAULT_CONTAINER_IMAGE });
    art.v1 = await packFixture('healthy', work);
    art.v2 = await packFixture('healthy-v2', work);
    // Slow on purpose (listens after 3 s) so the lease-loss test can kill the agent mid-reconcile.
    const slow = (delay: string) =>
      packFixture('slow-start', work, async (_dir, config) => ({
        ...config,
        env: { ...config.env, SLOW_START_DELAY_MS: delay },
        health: { ...config.health, timeoutMs: 30_000 },
      }));
    art.slow = await slow('3000');
    art.slow2 = await slow('2500');
    art.slow3 = await slow('3500');
    platform = await startPlatform({ env: { SVC_LOG_LEVEL: 'warn', SVC_NODE_LEASE_MS: '3000', SVC_NODE_OPERATION_LEASE_MS: '3000' } });
    account = await bootstrapAccount(platform.url);
    projectId = (await account.api<{ project: { id: string } }>('POST', '/api/projects', { name: 'Node E2E', slug: 'node-e2e' })).project.id;
    provider = await startRunner(
      ['provider', '--listen', '127.0.0.1:0'],
      { SVC_PROVIDER_TOKEN: PROVIDER_TOKEN, SVC_RUNNER: 'container', SVC_RUNNER_DATA_DIR: providerData() },
      /listening on (http:\/\/[^/\s]+)/,
    );
    providerUrl = provider.match[1]!;
  }, 240_000);

  afterAll(async () => {
    await agent?.stop(30_000);
    await localAgent?.stop(30_000);
    await provider?.stop(30_000);
    await platform?.stop();
    for (const id of [projectId, leaseProjectId, localProjectId]) if (id) await removeProjectContainers(id);
    if (work) await removeDataDir(work);
  }, 120_000);

  it('enrolls once with a registration token, then runs from the 0600 credentials file alone; SIGTERM drains', async () => {
    const { token } = registrationTokenSchema.parse(await account.session('POST', '/api/admin/nodes/registration-tokens', {}));
    agent = await startAgent({ SVC_RUNNER_REGISTRATION_TOKEN: token });
    expect(agent.output()).toContain('Remove SVC_RUNNER_REGISTRATION_TOKEN');
    expect((await stat(credentialsPath())).mode & 0o777).toBe(0o600);
    const file = nodeCredentialsFileSchema.parse(JSON.parse(await readFile(credentialsPath(), 'utf8')));
    expect(file.nodeId).toBe(NODE_ID);
    expect(agent.output()).not.toContain(file.credential);
    const listed = nodeListSchema.parse(await account.session('GET', '/api/admin/nodes'));
    expect(listed.nodes).toEqual([expect.objectContaining({ id: NODE_ID, region: 'eu-1', labels: { zone: 'a' }, status: 'ready' })]);

    expect(await agent.stop()).toBe(0);
    expect(agent.output()).toContain('drained');
    const drained = nodeListSchema.parse(await account.session('GET', '/api/admin/nodes'));
    expect(drained.nodes[0]!.status).toBe('draining');

    // Restart without the token: the credentials file suffices (the token was single-use anyway).
    agent = await startAgent();
    expect(agent.output()).not.toContain('enrolled node');
    await eventually(async () => nodeListSchema.parse(await account.session('GET', '/api/admin/nodes')).nodes[0]!.status === 'ready', 10_000);
  }, 120_000);

  it('place → deploy release 1 → upgrade to release 2 → stop, converged in hardened containers through the bridge', async () => {
    const placed = await account.api<{ nodeId: string }>('PUT', `/api/projects/${projectId}/placement`, { region: 'eu-1', labels: { zone: 'a' } });
    expect(placed.nodeId).toBe(NODE_ID);

    const first = await upload(art.v1!, 'node-e2e-v1-key');
    expect(first.status, `${await first.clone().text()}${diagnostics()}`).toBe(201);
    const g1 = await observedDesired().catch((e: unknown) => Promise.reject(new Error(`${String(e)}${diagnostics()}`)));
    expect(g1.observed).toMatchObject({ kind: 'http', state: 'running', releaseId: g1.desired!.releaseId });
    expect(await eventually(() => health(), 30_000)).toEqual(expect.objectContaining({ ok: true, version: 1 }));
    const release1 = (await pointer()).releaseId;
    expect(release1).toBe(g1.desired!.releaseId);
    expect(await projectContainers(projectId)).toHaveLength(1);

    const second = await upload(art.v2!, 'node-e2e-v2-key');
    expect(second.status, `${await second.clone().text()}${diagnostics()}`).toBe(201);
    const g2 = await observedDesired();
    expect(g2.desired!.generation).toBe(g1.desired!.generation + 1);
    expect(await eventually(async () => ((await health()).version === 2 ? health() : null), 30_000)).toMatchObject({ ok: true, version: 2 });
    expect((await pointer()).previousReleaseId).toBe(release1);
    // The old generation drains: exactly one container remains.
    await eventually(async () => (await projectContainers(projectId)).length === 1, 30_000);
    const releases = await account.api<{ releases: { id: string; status: string }[] }>('GET', `/api/projects/${projectId}/releases`);
    expect(releases.releases.find((r) => r.id === g2.desired!.releaseId)?.status).toBe('active');

    await account.api('POST', `/api/projects/${projectId}/generations`, { state: 'stopped' });
    const g3 = await observedDesired();
    expect(g3.observed).toMatchObject({ state: 'stopped', releaseId: null, generation: g2.desired!.generation + 1 });
    expect(await pointer()).toMatchObject({ releaseId: null, host: null, port: null });
    await eventually(async () => (await projectContainers(projectId)).length === 0, 30_000);
  }, 300_000);

  it('lease loss: kill -9 mid-reconcile → the next agent gets the operation with a higher fence; the stale fence is rejected', async () => {
    // A project of its own: the first one's database already carries release 2's migration.
    leaseProjectId = (await account.api<{ project: { id: string } }>('POST', '/api/projects', { name: 'Lease E2E', slug: 'lease-e2e' })).project.id;
    await account.api('PUT', `/api/projects/${leaseProjectId}/placement`, {});
    const res = await upload(art.slow!, 'node-e2e-slow-key', false, leaseProjectId);
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    const leased = await eventually(async () => {
      const op = (await generations(leaseProjectId)).operations[0];
      return op?.status === 'leased' ? op : null;
    }, 30_000);
    agent!.child.kill('SIGKILL');
    await agent!.exited;
    const staleFence = leased.fence;

    agent = await startAgent();
    const g = await observedDesired(120_000, leaseProjectId).catch((e: unknown) => Promise.reject(new Error(`${String(e)}${diagnostics()}`)));
    const op = g.operations.find((o) => o.id === leased.id)!;
    expect(op.status).toBe('observed');
    expect(op.fence).toBeGreaterThan(staleFence);
    expect(op.attempts).toBeGreaterThanOrEqual(2);
    // The agent logs after the control plane answered, so its line may trail the status by a moment.
    const line = `operation ${leased.id} fence ${op.fence} generation ${g.desired!.generation} observed running`;
    await eventually(() => agent!.output().includes(line), 10_000).catch(() => Promise.reject(new Error(`no "${line}" in:\n${agent!.output()}`)));
    expect(await eventually(() => health(leaseProjectId), 30_000)).toMatchObject({ ok: true });

    // What the killed agent would have sent had it lived: its observation under the old fence is refused.
    const { credential } = nodeCredentialsFileSchema.parse(JSON.parse(await readFile(credentialsPath(), 'utf8')));
    const stale = await fetch(`${platform.url}/api/nodes/operations/${leased.id}/observe`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        fence: staleFence,
        result: { kind: 'http', generation: g.desired!.generation, releaseId: g.desired!.releaseId, state: 'running' },
      }),
    });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { error: { code: string } }).error.code).toBe('SVC_PROVIDER_STALE_FENCE');
  }, 300_000);

  it('lease loss with the stale agent alive: frozen past its lease, its late work under the old fence is never recorded', async () => {
    const res = await upload(art.slow3!, 'node-e2e-slow3-key', false, leaseProjectId);
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    const leased = await eventually(async () => {
      const op = (await generations(leaseProjectId)).operations[0];
      return op?.status === 'leased' ? op : null;
    }, 30_000);
    const stale = agent!;
    stale.child.kill('SIGSTOP');
    try {
      agent = await startAgent();
      const g = await observedDesired(120_000, leaseProjectId).catch((e: unknown) => Promise.reject(new Error(`${String(e)}${diagnostics()}`)));
      expect(g.operations[0]).toMatchObject({ id: leased.id, status: 'observed' });
      expect(g.operations[0]!.fence).toBeGreaterThan(leased.fence);
    } finally {
      stale.child.kill('SIGCONT');
    }
    // Resumed, the stale agent either has its observation refused or notices the lost lease first.
    const line = new RegExp(`operation ${leased.id} fence ${leased.fence} (generation \\d+ observation rejected as stale|failed SVC_RUNNER_LEASE_LOST)`);
    await eventually(() => line.test(stale.output()), 30_000).catch(() => Promise.reject(new Error(`stale agent output:\n${stale.output()}`)));
    expect(stale.output()).not.toMatch(new RegExp(`operation ${leased.id} fence ${leased.fence} generation \\d+ observed`));
    const after = await generations(leaseProjectId);
    expect(after.operations[0]).toMatchObject({ id: leased.id, status: 'observed' });
    expect(after.operations[0]!.fence).toBeGreaterThan(leased.fence);
    expect(await stale.stop()).toBe(0);
  }, 240_000);

  it('SIGTERM during a reconcile drains: the running reconcile finishes and is observed before exit 0', async () => {
    const res = await upload(art.slow2!, 'node-e2e-slow2-key', false, leaseProjectId);
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    const leased = await eventually(async () => {
      const op = (await generations(leaseProjectId)).operations[0];
      return op?.status === 'leased' ? op : null;
    }, 30_000);
    expect(await agent!.stop(90_000)).toBe(0);
    const output = agent!.output();
    const observedAt = output.indexOf(`operation ${leased.id} fence ${leased.fence} generation`);
    expect(observedAt, output).toBeGreaterThan(-1);
    expect(output.slice(observedAt)).toMatch(/observed running[\s\S]*drained/);
    const g = await generations(leaseProjectId);
    expect(g.observed?.generation).toBe(g.desired!.generation);
    expect(g.operations[0]).toMatchObject({ id: leased.id, status: 'observed' });
    agent = undefined;
  }, 180_000);

  it('without SVC_PROVIDER_URL a node runs the local fenced provider, apps sandboxed; draining it closes the provider (apps stop)', async () => {
    const { token } = registrationTokenSchema.parse(await account.session('POST', '/api/admin/nodes/registration-tokens', {}));
    const localData = join(work, 'local-node');
    const env = agentEnv({
      SVC_RUNNER_NODE_ID: 'node-e2e-local',
      SVC_RUNNER_LABELS: 'zone=b',
      SVC_RUNNER_CREDENTIALS: join(localData, 'credentials.json'),
      SVC_RUNNER_DATA_DIR: localData,
      SVC_RUNNER: 'process',
    });
    delete (env as Partial<typeof env>).SVC_PROVIDER_URL;
    delete (env as Partial<typeof env>).SVC_PROVIDER_TOKEN;
    localAgent = await startRunner(
      ['agent'],
      { ...env, SVC_RUNNER_REGISTRATION_TOKEN: token },
      /svc-runner agent: node \S+ ready \(2 workers, provider (\S+)\)/,
    );
    expect(localAgent.output()).toContain('provider local-sandbox');
    localProjectId = (await account.api<{ project: { id: string } }>('POST', '/api/projects', { name: 'Local node', slug: 'local-node' })).project.id;
    expect((await account.api<{ nodeId: string }>('PUT', `/api/projects/${localProjectId}/placement`, { labels: { zone: 'b' } })).nodeId).toBe(
      'node-e2e-local',
    );
    const res = await upload(art.v1!, 'node-e2e-local-v1', true, localProjectId);
    expect(res.status, `${await res.clone().text()}${localAgent.output()}`).toBe(201);
    const g = await observedDesired(60_000, localProjectId);
    expect(g.observed).toMatchObject({ kind: 'local-sandbox', state: 'running' });
    expect(listFences(join(localData, 'runtime-fences'), localProjectId).map((f) => f.fence?.runtime?.kind)).toEqual(['sandbox']);
    const p = JSON.parse(await readFile(join(localData, 'projects', localProjectId, 'active.json'), 'utf8')) as ActivePointer;
    const url = `http://${p.host}:${p.port}/healthz`;
    expect(await (await fetch(url)).json()).toMatchObject({ ok: true, version: 1 });

    expect(await localAgent.stop()).toBe(0);
    await expect(fetch(url, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
    const nodes = nodeListSchema.parse(await account.session('GET', '/api/admin/nodes')).nodes;
    expect(nodes.find((n) => n.id === 'node-e2e-local')?.status).toBe('draining');
  }, 180_000);
});

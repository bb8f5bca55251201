// Runner node on another "host" over HTTPS: two network namespaces joined by a veth pair. Namespace A
// runs the control plane on its own loopback behind a TLS forwarder (10.231.0.1:8443, certificate from a
// throwaway CA); namespace B runs `svc-runner agent` with the local provider, trusting the CA through
// NODE_EXTRA_CA_CERTS. The test process (root namespace) reaches the control plane through a Unix socket.
// Shown: plain http off loopback is refused, enrollment over HTTPS, placement, deploy, the app answering
// inside namespace B from its sandbox (the node default), and a stopped generation stopping it.
import { chmod, mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { commandComponent, netnsComponent, requireComponents, sandboxComponents } from '../../support/require-components.js';
import { eventually, packFixture, removeDataDir, type Artifact } from '../../releases/release-support.js';
import {
  createNetnsPair,
  makeTestPki,
  relayToUnixSocket,
  spawnInNetns,
  tsxArgv,
  waitForOutput,
  type NetnsPair,
  type NetnsProcess,
  type TestPki,
} from './netns-support.js';
import { postRelease } from '../../support/post-release.js';

// Namespaces need root and kernel support, the certificates openssl, the node's apps the default sandbox.
const gate = requireComponents('multi-host runner node', [netnsComponent(), commandComponent('openssl', ['openssl', 'version']), ...sandboxComponents()]);

const PLATFORM_LISTEN = '127.0.0.1:8081';
const NODE_ID = 'node-multihost-1';
let work = '';
let pair: NetnsPair | undefined;
let pki: TestPki;
let platform: NetnsProcess | undefined;
let forwarder: NetnsProcess | undefined;
let relay: Awaited<ReturnType<typeof relayToUnixSocket>> | undefined;
let agent: NetnsProcess | undefined;
let account: TestAccount;
let projectId = '';
let token = '';
let artifact: Artifact;
const credentialsPath = () => join(work, 'node', 'credentials.json');
const nodeData = () => join(work, 'node', 'data');
const httpsUrl = () => `https://${pair!.addressA}:8443`;

function agentEnv(controlUrl: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_EXTRA_CA_CERTS: pki.caCert,
    SVC_CONTROL_URL: controlUrl,
    SVC_RUNNER_NODE_ID: NODE_ID,
    SVC_RUNNER_REGION: 'eu-2',
    SVC_RUNNER_LABELS: 'site=b',
    SVC_RUNNER_CREDENTIALS: credentialsPath(),
    SVC_RUNNER_DATA_DIR: nodeData(),
    SVC_RUNNER: 'process',
    SVC_RUNNER_RETRY_DELAY_MS: '50',
    SVC_RUNNER_TIMEOUT_MS: '60000',
    SVC_RUNNER_REGISTRATION_TOKEN: token,
  };
}

/** GET `url` from a Node process inside namespace `ns`: exit 0 and the body, 3 on non-2xx, 2 and the error code if unreachable. */
async function fetchInNetns(ns: string, url: string, env: Record<string, string> = {}): Promise<{ exitCode: number | null; body: string }> {
  const script =
    'fetch(process.argv[1], { signal: AbortSignal.timeout(5000) }).then(async (r) => { process.stdout.write(await r.text()); process.exitCode = r.ok ? 0 : 3; }, (e) => { process.stderr.write(String(e.cause?.code ?? e)); process.exitCode = 2; })';
  const result = await execCommand(
    command('ip', ['netns', 'exec', ns, process.execPath, '-e', script, url], { env: { PATH: process.env.PATH ?? '', ...env }, replaceEnv: true }),
  );
  return { exitCode: result.exitCode, body: result.stdout || result.stderr };
}

const generations = async (): Promise<GenerationStatus> => generationStatusSchema.parse(await account.api('GET', `/api/projects/${projectId}/generations`));
const pointer = async (): Promise<ActivePointer> => JSON.parse(await readFile(join(nodeData(), 'projects', projectId, 'active.json'), 'utf8')) as ActivePointer;
const diagnostics = () => `\n--- agent ---\n${agent?.output().slice(-3000) ?? ''}\n--- platform ---\n${platform?.output().slice(-3000) ?? ''}`;
/** Wait until the node observed the desired generation. */
const observedDesired = () =>
  eventually(async () => {
    const g = await generations();
    return g.desired && g.observed?.generation === g.desired.generation && g.observed.state === g.desired.state ? g : null;
  }, 45_000).catch((e: unknown) => Promise.reject(new Error(`${String(e)}${diagnostics()}`)));

describe.skipIf(gate.skip)('svc-runner agent on another network namespace, control plane over HTTPS', () => {
  beforeAll(async () => {
    gate.assertPresent();
    work = await mkdtemp(join(tmpdir(), 'svc-multihost-'));
    // The node's data directory is inside: its sandboxed apps (a uid of their own) must pass through.
    await chmod(work, 0o711);
    pair = await createNetnsPair();
    pki = await makeTestPki(work, pair.addressA);
    artifact = await packFixture('healthy', work);
    const dataDir = join(work, 'platform');
    platform = spawnInNetns(pair.a, tsxArgv('src/platform-main.ts', '--listen', PLATFORM_LISTEN, '--data', dataDir), {
      ...process.env,
      SVC_LISTEN: PLATFORM_LISTEN,
      SVC_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: 'warn',
      SVC_INGRESS_PROCESS: 'off',
    } as Record<string, string>);
    const socket = join(work, 'control.sock');
    forwarder = spawnInNetns(
      pair.a,
      tsxArgv(
        'test/runner/agent/netns-tls-forwarder.ts',
        '--tls',
        `${pair.addressA}:8443`,
        '--plain',
        `${pair.addressA}:8080`,
        '--unix',
        socket,
        '--upstream',
        PLATFORM_LISTEN,
        '--cert',
        pki.serverCert,
        '--key',
        pki.serverKey,
      ),
      { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
    );
    await waitForOutput(forwarder, /netns forwarder ready/, 30_000);
    relay = await relayToUnixSocket(socket);
    await eventually(async () => (await fetch(`${relay!.url}/readyz`, { signal: AbortSignal.timeout(2_000) })).ok, 30_000).catch((e: unknown) =>
      Promise.reject(new Error(`${String(e)}${diagnostics()}`)),
    );
    account = await bootstrapAccount(relay.url);
    projectId = (await account.api<{ project: { id: string } }>('POST', '/api/projects', { name: 'Multi-host', slug: 'multihost' })).project.id;
    token = registrationTokenSchema.parse(await account.session('POST', '/api/admin/nodes/registration-tokens', {})).token;
  }, 60_000);

  afterAll(async () => {
    await agent?.stop(15_000);
    await forwarder?.stop(5_000);
    await platform?.stop(5_000);
    await relay?.close();
    await pair?.remove();
    if (work) await removeDataDir(work);
  }, 40_000);

  it('namespace B reaches the control plane only through TLS it can verify with the test CA', async () => {
    const trusted = await fetchInNetns(pair!.b, `${httpsUrl()}/readyz`, { NODE_EXTRA_CA_CERTS: pki.caCert });
    expect(trusted, trusted.body).toMatchObject({ exitCode: 0 });
    const untrusted = await fetchInNetns(pair!.b, `${httpsUrl()}/readyz`);
    expect(untrusted).toEqual({ exitCode: 2, body: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    // Plain HTTP across the namespaces works at the network level, so the agent's refusal below is policy.
    expect((await fetchInNetns(pair!.b, `http://${pair!.addressA}:8080/readyz`)).exitCode).toBe(0);
  });

  it('refuses a plain http control URL off loopback (SVC_RUNNER_CONFIG, exit 64) before enrolling', async () => {
    const refused = spawnInNetns(pair!.b, tsxArgv('runner/runner-main-cli.ts', 'agent'), agentEnv(`http://${pair!.addressA}:8080`));
    const code = await Promise.race([refused.exited, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 30_000))]);
    await refused.stop(1_000);
    expect(code, refused.output()).toBe(64);
    expect(refused.output()).toMatch(/^SVC_RUNNER_CONFIG:/m);
    await expect(stat(credentialsPath())).rejects.toMatchObject({ code: 'ENOENT' });
  }, 40_000);

  it('enrolls over HTTPS across the namespaces with the same (still unused) registration token', async () => {
    agent = spawnInNetns(pair!.b, tsxArgv('runner/runner-main-cli.ts', 'agent'), agentEnv(httpsUrl()));
    await waitForOutput(agent, /svc-runner agent: node \S+ ready \(\d+ workers, provider local-sandbox\)/, 40_000);
    expect(agent.output()).toContain('Remove SVC_RUNNER_REGISTRATION_TOKEN');
    expect((await stat(credentialsPath())).mode & 0o777).toBe(0o600);
    const file = nodeCredentialsFileSchema.parse(JSON.parse(await readFile(credentialsPath(), 'utf8')));
    expect(file).toMatchObject({ nodeId: NODE_ID, controlUrl: expect.stringMatching(/^https:\/\/10\.231\.0\.1:8443/) as unknown });
    const listed = nodeListSchema.parse(await account.session('GET', '/api/admin/nodes'));
    expect(listed.nodes).toEqual([expect.objectContaining({ id: NODE_ID, region: 'eu-2', labels: { site: 'b' }, status: 'ready' })]);
  }, 50_000);

  it('places a project on the node, deploys a release that answers inside namespace B, then stops it', async () => {
    expect(agent, 'the enrollment test must have started the agent').toBeDefined();
    expect((await account.api<{ nodeId: string }>('PUT', `/api/projects/${projectId}/placement`, { region: 'eu-2', labels: { site: 'b' } })).nodeId).toBe(
      NODE_ID,
    );
    const uploaded = await postRelease(relay!.url, account.accessToken, projectId, artifact, { key: 'multihost-v1' });
    expect(uploaded.status, `${await uploaded.clone().text()}${diagnostics()}`).toBe(201);
    const running = await observedDesired();
    expect(running.observed).toMatchObject({ kind: 'local-sandbox', state: 'running', releaseId: running.desired!.releaseId });
    expect(listFences(join(nodeData(), 'runtime-fences'), projectId).map((f) => f.fence?.runtime?.kind)).toEqual(['sandbox']);
    const p = await pointer();
    expect(p.releaseId).toBe(running.desired!.releaseId);
    const healthUrl = `http://${p.host}:${p.port}/healthz`;
    const health = await eventually(async () => {
      const r = await fetchInNetns(pair!.b, healthUrl);
      return r.exitCode === 0 ? r : null;
    }, 15_000);
    expect(JSON.parse(health.body)).toMatchObject({ ok: true, version: 1 });

    await account.api('POST', `/api/projects/${projectId}/generations`, { state: 'stopped' });
    const stopped = await observedDesired();
    expect(stopped.observed).toMatchObject({ state: 'stopped', releaseId: null, generation: running.desired!.generation + 1 });
    expect(await pointer()).toMatchObject({ releaseId: null, host: null, port: null });
    await eventually(async () => (await fetchInNetns(pair!.b, healthUrl)).body === 'ECONNREFUSED', 15_000);

    expect(await agent!.stop(15_000)).toBe(0);
    expect(agent!.output()).toContain('drained');
    agent = undefined;
  }, 70_000);
});

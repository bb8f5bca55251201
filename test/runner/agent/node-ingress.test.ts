// Placed projects served through the control plane's ingress, every part a separate process on
// loopback: the control plane (svc-platform), `svc-runner agent` with its local provider, and for the
// lost-answer case `svc-runner provider` behind a proxy that swallows the bridge's answers.
// 1. deploy → GET with `Host: <slug>.localhost` answers from the node's app; a rollback through the CLI
//    waits for the node and the older release answers (also past a migration); a stopped node is unrouted.
// 2. every bridge answer of a deploy is lost until the agent's retries run out (the provider did apply
//    it): the operation is leased again and the release settles active, matching what the node runs.
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivePointer } from '../../../runner/provider/local-provider.js';
import { generationStatusSchema, registrationTokenSchema, type GenerationStatus } from '../../../src/nodes/contract.js';
import type { TestAccount } from '../../support/account.js';
import { finalJson, runCli } from '../../support/run-cli.js';
import type { StartedPlatform } from '../../support/start-platform.js';
import { eventually, packFixture, type Artifact } from '../../releases/release-support.js';
import { steadyTraffic } from '../../releases/steady-traffic.js';
import { startRunner, type RunnerProcess } from './runner-processes.js';
import { postRelease } from '../../support/post-release.js';
import { startNodePlatform, stopNodeSuite } from './node-platform.js';

const PROVIDER_TOKEN = randomBytes(24).toString('hex');
let work: string;
let platform: StartedPlatform;
let account: TestAccount;
const runners: RunnerProcess[] = [];
const art: Record<string, Artifact> = {};

async function createPlaced(slug: string, labels: Record<string, string>): Promise<string> {
  const id = (await account.api<{ project: { id: string } }>('POST', '/api/projects', { name: slug, slug })).project.id;
  await account.api('PUT', `/api/projects/${id}/placement`, { labels });
  return id;
}
async function upload(
  projectId: string,
  artifact: Artifact,
  key: string,
): Promise<{ status: number; release: { id: string; status: string; failure?: { step: string; code: string } } }> {
  const response = await postRelease(platform.url, account.accessToken, projectId, artifact, { key });
  const body = (await response.json()) as { release: { id: string; status: string; failure?: { step: string; code: string } } };
  return { status: response.status, release: body.release };
}
/** GET / of a project through the control plane's ingress (by Host). */
async function viaIngress(slug: string): Promise<{ status: number; body: { version?: number; release?: string; error?: { code: string } } }> {
  const response = await request(`${platform.url}/`, { headers: { host: `${slug}.localhost:${platform.port}` } });
  return { status: response.statusCode, body: (await response.body.json()) as never };
}
const releasesOf = (projectId: string) =>
  account.api<{ activeReleaseId: string | null; releases: { id: string; status: string }[] }>('GET', `/api/projects/${projectId}/releases`);
const generations = async (projectId: string): Promise<GenerationStatus> =>
  generationStatusSchema.parse(await account.api('GET', `/api/projects/${projectId}/generations`));

async function startAgent(nodeId: string, label: string, extra: Record<string, string> = {}): Promise<RunnerProcess> {
  const { token } = registrationTokenSchema.parse(await account.session('POST', '/api/admin/nodes/registration-tokens', {}));
  const data = join(work, nodeId);
  const agent = await startRunner(
    ['agent'],
    {
      SVC_CONTROL_URL: platform.url,
      SVC_RUNNER_NODE_ID: nodeId,
      SVC_RUNNER_LABELS: `node=${label}`,
      SVC_RUNNER_CREDENTIALS: join(data, 'credentials.json'),
      SVC_RUNNER_DATA_DIR: data,
      SVC_RUNNER_REGISTRATION_TOKEN: token,
      SVC_RUNNER: 'process',
      SVC_SANDBOX: 'off',
      SVC_RUNNER_RETRY_DELAY_MS: '50',
      SVC_RUNNER_TIMEOUT_MS: '60000',
      ...extra,
    },
    /svc-runner agent: node \S+ ready/,
  );
  runners.push(agent);
  return agent;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-node-ingress-'));
  art.v1 = await packFixture('healthy', work);
  // The same app as another release (code only: same migrations), and release 2 with a migration.
  art.v1b = await packFixture('healthy', work, async (_dir, config) => ({ ...config, env: { ...config.env, FLAVOUR: 'b' } }));
  art.v2 = await packFixture('healthy-v2', work);
  art.badMigration = await packFixture('bad-migration', work);
  ({ platform, account } = await startNodePlatform());
}, 120_000);

afterAll(() => stopNodeSuite({ runners, platform, work }), 120_000);

describe('placed projects through the ingress', () => {
  it('deploy → served by Host from the node; CLI rollback waits and the older release answers; an offline node is unrouted', async () => {
    const agent = await startAgent('node-ingress', 'ingress');
    const projectId = await createPlaced('on-node', { node: 'ingress' });
    const diagnostics = () => `\n--- agent ---\n${agent.output().slice(-3000)}\n--- platform ---\n${platform.logs().slice(-3000)}`;

    const first = await upload(projectId, art.v1!, 'ingress-v1');
    expect([first.status, first.release.status], diagnostics()).toEqual([201, 'active']);
    // The deploy is answered active only once the route moved: the very next request reaches the app.
    expect(await viaIngress('on-node')).toMatchObject({ status: 200, body: { version: 1, release: first.release.id } });

    const second = await upload(projectId, art.v1b!, 'ingress-v1b');
    expect([second.status, second.release.status], diagnostics()).toEqual([201, 'active']);
    expect(await viaIngress('on-node')).toMatchObject({ status: 200, body: { version: 1, release: second.release.id } });

    // `svc rollback` answers once the node ran it, with the final status.
    const home = await mkdtemp(join(work, 'home-'));
    const rollback = (releaseId: string) =>
      runCli(['rollback', releaseId, '--project', projectId, '--json'], {
        home,
        env: { SVC_SERVER: platform.url, SVC_TOKEN: account.accessToken },
        timeoutMs: 90_000,
      });
    const back = await rollback(first.release.id);
    expect(back.exitCode, `${back.stderr}${diagnostics()}`).toBe(0);
    expect(finalJson(back.stdout)).toMatchObject({ release: { id: first.release.id, status: 'active' }, previousReleaseId: second.release.id });
    expect(await viaIngress('on-node')).toMatchObject({ status: 200, body: { version: 1, release: first.release.id } });

    // Release 2 adds a migration; a code-only rollback past it runs as on the control plane: the older
    // code against the newer schema it predates (its own migrations are all applied).
    const third = await upload(projectId, art.v2!, 'ingress-v2');
    expect([third.status, third.release.status], diagnostics()).toEqual([201, 'active']);
    expect(await viaIngress('on-node')).toMatchObject({ status: 200, body: { version: 2, release: third.release.id } });
    const past = await rollback(second.release.id);
    expect(past.exitCode, `${past.stderr}${diagnostics()}`).toBe(0);
    expect(finalJson(past.stdout)).toMatchObject({
      release: { id: second.release.id, status: 'active' },
      previousReleaseId: third.release.id,
      restoredData: false,
    });
    expect(await viaIngress('on-node')).toMatchObject({ status: 200, body: { version: 1, release: second.release.id } });

    // A stopped node stops heartbeating: once it is offline its project is unrouted (no dead upstream).
    expect(await agent.stop(30_000)).toBe(0);
    const unrouted = await eventually(async () => {
      const answer = await viaIngress('on-node');
      return answer.status === 503 ? answer : null;
    }, 20_000);
    expect(unrouted.body.error?.code).toBe('SVC_INGRESS_NO_ACTIVE_RELEASE');
  }, 240_000);

  it('a failed stop-first cutover on the node: requests are held, then served by the restored release; none fails', async () => {
    const agent = await startAgent('node-cutover', 'cutover');
    const projectId = await createPlaced('cutover', { node: 'cutover' });
    const diagnostics = () => `\n--- agent ---\n${agent.output().slice(-3000)}\n--- platform ---\n${platform.logs().slice(-3000)}`;
    const first = await upload(projectId, art.v1!, 'cutover-v1');
    expect([first.status, first.release.status], diagnostics()).toEqual([201, 'active']);

    // Its migration fails after the writer stopped: the node restores the snapshot and restarts release 1.
    const traffic = steadyTraffic(platform.url, `cutover.localhost:${platform.port}`);
    const failed = await upload(projectId, art.badMigration!, 'cutover-bad');
    await new Promise((r) => setTimeout(r, 300));
    const seen = await traffic.stop();
    expect(failed.release, diagnostics()).toMatchObject({ status: 'failed', failure: { step: 'migrate', code: 'SVC_MIGRATION_FAILED' } });
    expect(seen.failures, diagnostics()).toEqual([]);
    expect([...seen.releases]).toEqual([first.release.id]);
    expect(await viaIngress('cutover')).toMatchObject({ status: 200, body: { release: first.release.id } });
  }, 240_000);

  it('every bridge answer lost until retries run out: the operation is leased again and the release settles active as the node runs it', async () => {
    const providerData = join(work, 'bridge-provider');
    const provider = await startRunner(
      ['provider', '--listen', '127.0.0.1:0'],
      { SVC_PROVIDER_TOKEN: PROVIDER_TOKEN, SVC_RUNNER: 'process', SVC_SANDBOX: 'off', SVC_RUNNER_DATA_DIR: providerData },
      /listening on (http:\/\/[^/\s]+)/,
    );
    runners.push(provider);
    const lossy = await startLossyProxy(provider.match[1]!);
    try {
      const agent = await startAgent('node-bridge', 'bridge', {
        SVC_PROVIDER_URL: lossy.url,
        SVC_PROVIDER_TOKEN: PROVIDER_TOKEN,
        SVC_RUNNER_RETRY_ATTEMPTS: '2',
      });
      const projectId = await createPlaced('via-bridge', { node: 'bridge' });
      const diagnostics = () => `\n--- agent ---\n${agent.output().slice(-4000)}\n--- provider ---\n${provider.output().slice(-2000)}`;
      const first = await upload(projectId, art.v1!, 'bridge-v1');
      expect([first.status, first.release.status], diagnostics()).toEqual([201, 'active']);

      // The provider applies release 2, but its answers to all of the agent's deliveries are lost.
      lossy.dropAnswers(2);
      const second = await upload(projectId, art.v2!, 'bridge-v2');
      expect(second.status, diagnostics()).toBe(201);
      const settled = await eventually(async () => {
        const list = await releasesOf(projectId);
        return list.activeReleaseId === second.release.id ? list : null;
      }, 60_000).catch((e: unknown) => Promise.reject(new Error(`${String(e)}${diagnostics()}`)));
      // The first answer at least was lost. On a slow box a heartbeat that shows release 2 running can
      // settle the operation before the agent's second delivery, so that one may never be sent.
      expect(lossy.dropped()).toBeGreaterThanOrEqual(1);
      expect(settled.releases.find((r) => r.id === first.release.id)?.status).toBe('inactive');
      const pointer = JSON.parse(await readFile(join(providerData, 'projects', projectId, 'active.json'), 'utf8')) as ActivePointer;
      expect(pointer.releaseId).toBe(second.release.id);
      const status = await generations(projectId);
      expect(status.observed).toMatchObject({ generation: status.desired!.generation, releaseId: second.release.id, state: 'running' });
      expect(status.operations[0]).toMatchObject({ status: 'observed' });
      // Its address came over the bridge: the ingress serves release 2.
      expect(await eventually(async () => ((await viaIngress('via-bridge')).body.version === 2 ? viaIngress('via-bridge') : null), 20_000)).toMatchObject({
        status: 200,
        body: { release: second.release.id },
      });
    } finally {
      await lossy.close();
    }
  }, 240_000);
});

/** A proxy in front of the bridge that forwards every request and can swallow the next `n` reconcile answers (it closes the connection instead). */
async function startLossyProxy(target: string): Promise<{ url: string; dropAnswers(n: number): void; dropped(): number; close(): Promise<void> }> {
  const upstream = new URL(target);
  let toDrop = 0;
  let dropped = 0;
  const server: Server = createServer((req, res) => {
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      if (req.method === 'POST' && toDrop > 0) {
        toDrop--;
        dropped++;
        // The provider's answer arrives in full here and is never passed on.
        answer.resume();
        answer.once('end', () => req.socket.destroy());
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.once('error', () => req.socket.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    dropAnswers: (n) => void (toDrop = n),
    dropped: () => dropped,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

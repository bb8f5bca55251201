// Canaries of a placed project, every part a separate process on loopback: the control plane
// (svc-platform) and `svc-runner agent` with its local provider. Under steady traffic through the
// control plane's ingress: a canary upload (the CLI's `x-svc-canary` header) starts the candidate on
// the node beside the baseline, both answer during the stages, the promotion switches without a failed
// request and the candidate then serves alone; a candidate answering 500 fails its stage and is aborted
// on the node while the baseline keeps serving, none of its requests failing.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generationStatusSchema, registrationTokenSchema } from '../../../src/nodes/contract.js';
import type { TestAccount } from '../../support/account.js';
import type { StartedPlatform } from '../../support/start-platform.js';
import { packCandidate, quickPolicy } from '../../canary/support.js';
import { eventually, packFixture, type Artifact } from '../../releases/release-support.js';
import { steadyTraffic } from '../../releases/steady-traffic.js';
import { startRunner, type RunnerProcess } from './runner-processes.js';
import { postRelease } from '../../support/post-release.js';
import { startNodePlatform, stopNodeSuite } from './node-platform.js';

let work: string;
let platform: StartedPlatform;
let account: TestAccount;
const runners: RunnerProcess[] = [];
const art: Record<string, Artifact> = {};

type UploadedRelease = { id: string; status: string; failure?: { step: string; code: string } };

async function upload(projectId: string, artifact: Artifact, key: string, canary: boolean): Promise<{ status: number; release: UploadedRelease }> {
  const response = await postRelease(platform.url, account.accessToken, projectId, artifact, { key, ...(canary ? { headers: { 'x-svc-canary': '1' } } : {}) });
  const body = (await response.json()) as { release: UploadedRelease };
  return { status: response.status, release: body.release };
}

async function viaIngress(slug: string): Promise<{ status: number; body: { version?: number; release?: string } }> {
  const response = await request(`${platform.url}/`, { headers: { host: `${slug}.localhost:${platform.port}` } });
  return { status: response.statusCode, body: (await response.body.json()) as never };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-node-canary-'));
  art.v1 = await packFixture('healthy', work);
  // Code-only candidates (the same migrations) with a short policy: two stages of 600 ms, 5 samples each.
  art.good = await packCandidate(work, 3, 'ok', quickPolicy());
  art.bad = await packCandidate(work, 4, 'fail', quickPolicy());
  ({ platform, account } = await startNodePlatform());
}, 120_000);

afterAll(() => stopNodeSuite({ runners, platform, work }), 120_000);

describe('canaries of a placed project', () => {
  it('promotes under steady traffic with both releases answering, then fails a 500-answering candidate with the baseline serving', async () => {
    const { token } = registrationTokenSchema.parse(await account.session('POST', '/api/admin/nodes/registration-tokens', {}));
    const data = join(work, 'node-canary');
    const agent = await startRunner(
      ['agent'],
      {
        SVC_CONTROL_URL: platform.url,
        SVC_RUNNER_NODE_ID: 'node-canary',
        SVC_RUNNER_LABELS: 'node=canary',
        SVC_RUNNER_CREDENTIALS: join(data, 'credentials.json'),
        SVC_RUNNER_DATA_DIR: data,
        SVC_RUNNER_REGISTRATION_TOKEN: token,
        SVC_RUNNER: 'process',
        SVC_SANDBOX: 'off',
        SVC_RUNNER_RETRY_DELAY_MS: '50',
        SVC_RUNNER_TIMEOUT_MS: '60000',
      },
      /svc-runner agent: node \S+ ready/,
    );
    runners.push(agent);
    const projectId = (await account.api<{ project: { id: string } }>('POST', '/api/projects', { name: 'canary-node', slug: 'canary-node' })).project.id;
    await account.api('PUT', `/api/projects/${projectId}/placement`, { labels: { node: 'canary' } });
    const diagnostics = () => `\n--- agent ---\n${agent.output().slice(-3000)}\n--- platform ---\n${platform.logs().slice(-3000)}`;

    const baseline = await upload(projectId, art.v1!, 'canary-v1', false);
    expect([baseline.status, baseline.release.status], diagnostics()).toEqual([201, 'active']);
    expect(await viaIngress('canary-node')).toMatchObject({ status: 200, body: { release: baseline.release.id } });

    // Promote: the upload answers once the promotion is committed.
    const traffic = steadyTraffic(platform.url, `canary-node.localhost:${platform.port}`);
    const promoted = await upload(projectId, art.good!, 'canary-good', true);
    await new Promise((r) => setTimeout(r, 300));
    const seen = await traffic.stop();
    expect([promoted.status, promoted.release.status], `${JSON.stringify(promoted.release)}${diagnostics()}`).toEqual([201, 'active']);
    expect(seen.failures, diagnostics()).toEqual([]);
    expect([...seen.releases].sort()).toEqual([baseline.release.id, promoted.release.id].sort());
    for (let i = 0; i < 10; i++) expect(await viaIngress('canary-node')).toMatchObject({ status: 200, body: { version: 3, release: promoted.release.id } });
    const runs = async () =>
      (
        await account.api<{ runs: { releaseId: string; state: string; stages: { trafficPercent: number; state: string }[] }[] }>(
          'GET',
          `/api/projects/${projectId}/canary`,
        )
      ).runs;
    expect(
      (await runs()).find((r) => r.releaseId === promoted.release.id),
      diagnostics(),
    ).toMatchObject({
      state: 'promoted',
      stages: [
        { trafficPercent: 20, state: 'passed' },
        { trafficPercent: 50, state: 'passed' },
      ],
    });
    // The node serves the candidate's app as its release (promoted without a restart) and shows no canary.
    const afterPromote = generationStatusSchema.parse(await account.api('GET', `/api/projects/${projectId}/generations`));
    expect(afterPromote.desired).toMatchObject({ state: 'running', releaseId: promoted.release.id });

    // Fail: the candidate answers 500 on `/`; its first stage fails, the node aborts it, the baseline serves throughout.
    const load = steadyTraffic(platform.url, `canary-node.localhost:${platform.port}`);
    const failed = await upload(projectId, art.bad!, 'canary-bad', true);
    await new Promise((r) => setTimeout(r, 300));
    const during = await load.stop();
    expect(failed.release, diagnostics()).toMatchObject({ status: 'failed', failure: { code: 'SVC_CANARY_CRITERIA_FAILED' } });
    // Only the candidate's own 500s (its answers carry no release) count as failures; the baseline answered every other request.
    expect(during.failures.length, diagnostics()).toBeGreaterThan(0);
    expect(new Set(during.failures), diagnostics()).toEqual(new Set(['500 ']));
    expect([...during.releases]).toEqual([promoted.release.id]);
    expect((await runs()).find((r) => r.releaseId === failed.release.id)).toMatchObject({ state: 'failed', stages: [{ trafficPercent: 20, state: 'failed' }] });
    expect((await account.api<{ activeReleaseId: string }>('GET', `/api/projects/${projectId}/releases`)).activeReleaseId).toBe(promoted.release.id);
    for (let i = 0; i < 10; i++) expect(await viaIngress('canary-node')).toMatchObject({ status: 200, body: { release: promoted.release.id } });
    // The abort is an ordinary generation of the baseline's release, observed by the node.
    const afterAbort = await eventually(async () => {
      const status = generationStatusSchema.parse(await account.api('GET', `/api/projects/${projectId}/generations`));
      return status.desired?.releaseId === promoted.release.id && status.operations[0]?.status === 'observed' ? status : null;
    }, 20_000);
    expect(afterAbort.observed).toMatchObject({ releaseId: promoted.release.id, state: 'running' });
  }, 240_000);
});

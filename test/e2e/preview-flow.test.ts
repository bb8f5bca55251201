// End to end: pull-request previews with the real control plane as a child process, a local server
// playing GitHub's API (every request svc sends validated against GitHub's OpenAPI description), real
// signed pull_request webhooks, a local OIDC issuer and the svc Action run as GitHub runs it:
//   PR opened → queued svc/preview + one comment; the Action in the pull request's workflow → preview
//   active at pr-7--<slug> while production is untouched; a second push → the same comment edited, the
//   preview replaced; a pull request's token refused for production; idle → stopped, woken by the next
//   requests through the ingress process (none fails); PR closed → app process gone,
//   data removed, host 404, Deployment inactive.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Preview } from '../../src/previews/contract.js';
import { prepareApp, runActionProcess } from '../action/action-process.js';
import { startLocalIssuer, type LocalIssuer } from '../action/oidc-issuer.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { appCredentials, githubEnv, type AppCredentials } from '../support/fake-github/app-credentials.js';
import { FakeGithub } from '../support/fake-github/fake-github.js';
import { example, pullRequestPayload, signedDelivery } from '../support/fake-github/webhooks.js';
import { runCli } from '../support/run-cli.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';

const REPO = 'acme/shop';
const REPO_ID = 777002;
const INSTALLATION = 55502;
const SLUG = 'pv-shop';
// Long enough that no step before the idle step leaves the preview without a request that long.
const IDLE_MS = 20_000;
const SHA = { main: '1'.repeat(40), head1: '2'.repeat(40), merge1: '3'.repeat(40), head2: '4'.repeat(40), merge2: '5'.repeat(40) };

let fake: FakeGithub;
let creds: AppCredentials;
let issuer: LocalIssuer;
let platform: StartedPlatform;
let account: TestAccount;
let root: string;
let workspace: string;
let projectId: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-e2e-preview-'));
  workspace = join(root, 'ws');
  creds = appCredentials();
  fake = new FakeGithub({ appId: creds.appId, publicKey: creds.publicKey });
  await fake.listen();
  fake.install(INSTALLATION, 'acme', { [REPO]: REPO_ID });
  issuer = await startLocalIssuer({ repository_id: String(REPO_ID), repository: REPO });
  platform = await startPlatform({ env: githubEnv(creds, fake.origin, { SVC_OIDC_ISSUER: issuer.issuer, SVC_PREVIEW_IDLE_MS: String(IDLE_MS) }) });
  account = await bootstrapAccount(platform.url);
  projectId = (await account.api<{ project: { id: string } }>('POST', '/api/projects', { name: 'PV Shop', slug: SLUG })).project.id;
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  await fake?.close();
  await issuer?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

async function deliver(event: string, payload: unknown): Promise<void> {
  const d = signedDelivery(creds.webhookSecret, event, payload);
  const res = await fetch(`${platform.url}/api/github/webhooks`, { method: 'POST', headers: d.headers, body: d.body });
  await res.arrayBuffer();
  expect(res.status).toBe(202);
}

async function until<T>(what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `timed out waiting for ${what}\ninvalid: ${fake.invalid.join('\n')}\nrequests: ${fake.requests.map((r) => `${r.method} ${r.path} ${r.status}`).join('\n')}\nserver:\n${platform.logs().slice(-4000)}`,
  );
}

const pr = (action: 'opened' | 'synchronize' | 'closed', sha: string, merged = false) =>
  pullRequestPayload({
    action,
    number: 7,
    sha,
    headRef: 'feature/login',
    title: 'Add login',
    login: 'octocat',
    merged,
    repoId: REPO_ID,
    fullName: REPO,
    installationId: INSTALLATION,
  });

/** The Action in the pull request's workflow: GITHUB_SHA and the token's sha are GitHub's merge commit. */
async function runPreviewAction(head: string, merge: string) {
  const eventPath = join(root, `event-${head.slice(0, 7)}.json`);
  await writeFile(eventPath, JSON.stringify(pr('synchronize', head)));
  issuer.claims.ref = 'refs/pull/7/merge';
  issuer.claims.sha = merge;
  return runActionProcess(
    workspace,
    { server: platform.url, project: SLUG, 'working-directory': 'app', 'retry-base-ms': '100' },
    {
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_SHA: merge,
      GITHUB_REF: 'refs/pull/7/merge',
      GITHUB_REPOSITORY_ID: String(REPO_ID),
      GITHUB_REPOSITORY: REPO,
      ACTIONS_ID_TOKEN_REQUEST_URL: issuer.requestUrl,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: issuer.requestToken,
    },
  );
}

async function serving(slug: string): Promise<{ status: number; body: { app?: string; version?: number; release?: string } }> {
  const response = await request(`${platform.url}/`, { headers: { host: `${slug}.localhost:${platform.port}` } });
  const text = await response.body.text();
  return { status: response.statusCode, body: text.startsWith('{') ? (JSON.parse(text) as { app?: string; version?: number }) : {} };
}

const previews = () => account.api<{ previews: Preview[] }>('GET', `/api/projects/${projectId}/previews`);
const appComments = () => fake.comments.filter((c) => c.appId !== null && c.issue === 7);
/** Processes of a release: the app gets SVC_RELEASE_ID in its (otherwise cleared) environment. */
function processesOf(releaseId: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`SVC_RELEASE_ID=${releaseId}`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('pull-request previews end to end', () => {
  it('opens, deploys from the pull request workflow, replaces on push, refuses the PR token for production, tears down on close', async () => {
    // Installed and linked (main), production deployed from main by the Action as a push workflow.
    const installed = example('installation', (p) => p.action === 'created');
    installed.installation.id = INSTALLATION;
    installed.installation.account.login = 'acme';
    installed.repositories = [{ id: REPO_ID, name: 'shop', full_name: REPO, private: true, node_id: 'R_2' }];
    await deliver('installation', installed);
    await until('installation', async () =>
      (await account.api<{ installations: { id: number }[] }>('GET', '/api/github/installations')).installations.some((x) => x.id === INSTALLATION),
    );
    const link = await runCli(['link', '--repo', REPO, '--branch', 'main', '--project', SLUG, '--json'], {
      home: root,
      env: { SVC_TOKEN: account.accessToken, SVC_SERVER: platform.url },
      timeoutMs: 60_000,
    });
    expect(link.exitCode, link.stderr).toBe(0);
    await prepareApp(workspace, 'healthy');
    issuer.claims.ref = 'refs/heads/main';
    issuer.claims.sha = SHA.main;
    const production = await runActionProcess(
      workspace,
      { server: platform.url, project: SLUG, 'working-directory': 'app', 'retry-base-ms': '100' },
      {
        GITHUB_EVENT_NAME: 'push',
        GITHUB_SHA: SHA.main,
        GITHUB_REF: 'refs/heads/main',
        GITHUB_REPOSITORY_ID: String(REPO_ID),
        GITHUB_REPOSITORY: REPO,
        ACTIONS_ID_TOKEN_REQUEST_URL: issuer.requestUrl,
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: issuer.requestToken,
      },
    );
    expect(production.exitCode, production.stdout).toBe(0);
    const productionRelease = production.outputs['release-id'];
    expect(await serving(SLUG)).toMatchObject({ status: 200, body: { app: 'healthy', version: 1 } });

    // 1. PR opened → the preview exists (waiting), a queued svc/preview check on the head, one comment.
    await deliver('pull_request', pr('opened', SHA.head1));
    const queued = await until('queued svc/preview', () => fake.runs(SHA.head1, 'svc/preview').at(-1));
    expect(queued).toMatchObject({ status: 'queued' });
    await until('the comment', () => appComments().length === 1);
    const [listed] = (await previews()).previews;
    expect(listed).toMatchObject({ number: 7, slug: `pr-7--${SLUG}`, state: 'waiting', headSha: SHA.head1 });
    const previewId = listed!.projectId;
    const host = `pr-7--${SLUG}`;
    const previewUrl = `http://${host}.localhost:${platform.port}`;

    // 2. The pull request's workflow runs the Action: the head commit is built and released into the preview.
    await prepareApp(workspace, 'healthy-v2');
    const first = await runPreviewAction(SHA.head1, SHA.merge1);
    expect(first.exitCode, `${first.stdout}\n${platform.logs().slice(-3000)}`).toBe(0);
    expect(first.outputs).toMatchObject({ status: 'active', url: previewUrl });
    expect(await serving(host)).toMatchObject({ status: 200, body: { app: 'healthy', version: 2, release: first.outputs['release-id'] } });
    // Production untouched: same release, same version.
    expect(await serving(SLUG)).toMatchObject({ status: 200, body: { version: 1, release: productionRelease } });
    const done = await until('svc/preview success', () => fake.runs(SHA.head1, 'svc/preview').find((r) => r.conclusion === 'success'));
    expect(done.output?.title).toBe(`Active at ${previewUrl}`);
    expect(fake.runs(SHA.head1, 'svc/release')).toEqual([]);
    const deployment = await until('preview deployment success', () =>
      fake.deploymentsIn('preview/pr-7').find((d) => d.ref === SHA.head1 && d.statuses.some((s) => s.state === 'success')),
    );
    expect(deployment.body).toMatchObject({ environment: 'preview/pr-7', transient_environment: true, production_environment: false });
    expect(deployment.statuses.find((s) => s.state === 'success')).toMatchObject({ environment_url: previewUrl });
    const comment = await until('comment says ready', () => appComments().find((c) => c.body.includes(previewUrl) && c.body.includes(SHA.head1.slice(0, 7))));

    // 3. A second push: the same comment is edited, the preview replaced, the old head's check superseded.
    await deliver('pull_request', pr('synchronize', SHA.head2));
    await until('svc/preview queued on the new head', () => fake.runs(SHA.head2, 'svc/preview').at(-1));
    const second = await runPreviewAction(SHA.head2, SHA.merge2);
    expect(second.exitCode, second.stdout).toBe(0);
    expect(second.outputs['release-id']).not.toBe(first.outputs['release-id']);
    expect(await serving(host)).toMatchObject({ status: 200, body: { release: second.outputs['release-id'] } });
    await until('comment edited for the new head', () => appComments().find((c) => c.id === comment.id && c.body.includes(SHA.head2.slice(0, 7))));
    expect(appComments()).toHaveLength(1);
    expect(fake.requests.filter((r) => r.method === 'POST' && /\/issues\/7\/comments$/.test(r.path))).toHaveLength(1);
    // The older head's upload is refused now (a retried run of the first push): it never activates.
    const stale = await runPreviewAction(SHA.head1, SHA.merge1);
    expect(stale.exitCode, stale.stdout).toBe(0);
    expect(stale.outputs.status).toBe('superseded');
    expect(await serving(host)).toMatchObject({ body: { release: second.outputs['release-id'] } });

    // 4. A pull request's token never deploys production.
    issuer.claims.ref = 'refs/pull/7/merge';
    issuer.claims.sha = SHA.merge2;
    const refused = await runActionProcess(
      workspace,
      { server: platform.url, project: SLUG, 'working-directory': 'app', build: 'false' },
      {
        GITHUB_SHA: SHA.merge2,
        GITHUB_REF: 'refs/pull/7/merge',
        GITHUB_REPOSITORY_ID: String(REPO_ID),
        GITHUB_REPOSITORY: REPO,
        ACTIONS_ID_TOKEN_REQUEST_URL: issuer.requestUrl,
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: issuer.requestToken,
      },
    );
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toContain('SVC_OIDC_CLAIMS_MISMATCH');
    expect(await serving(SLUG)).toMatchObject({ body: { release: productionRelease } });

    // 5. Idle: the preview is stopped; the next requests (through the ingress process) wait while it
    // starts again and are all answered by it.
    const previewRelease = second.outputs['release-id']!;
    expect(processesOf(previewRelease).length).toBeGreaterThan(0);
    await until('the idle preview stopped', () => processesOf(previewRelease).length === 0, IDLE_MS + 30_000);
    expect((await previews()).previews[0]).toMatchObject({ state: 'sleeping' });
    const woken = await Promise.all(Array.from({ length: 6 }, () => serving(host)));
    expect(woken.map((w) => w.status)).toEqual(Array(6).fill(200));
    expect(woken.every((w) => w.body.release === previewRelease)).toBe(true);
    expect(processesOf(previewRelease).length).toBeGreaterThan(0);
    expect((await previews()).previews[0]).toMatchObject({ state: 'active' });

    // 6. Closed (merged): app process gone, data removed, host 404, Deployment inactive, comment says so.
    await deliver('pull_request', pr('closed', SHA.head2, true));
    await until('preview removed', async () => (await previews()).previews.length === 0);
    await until('preview processes gone', () => processesOf(previewRelease).length === 0, 20_000);
    expect(existsSync(join(platform.dataDir, 'projects', previewId))).toBe(false);
    expect((await serving(host)).status).toBe(404);
    await until('deployment inactive', () => fake.deploymentsIn('preview/pr-7').every((d) => d.statuses.at(-1)?.state === 'inactive'));
    await until('comment says removed', () => appComments().find((c) => c.id === comment.id && /removed/i.test(c.body)));
    expect(appComments()).toHaveLength(1);
    expect(await serving(SLUG)).toMatchObject({ status: 200, body: { release: productionRelease } });
    expect(fake.invalid).toEqual([]);
  }, 600_000);
});

// End to end: the real control plane as a child process pointed at a local HTTP server that
// plays GitHub's API (GHE_PROTOCOL=http GHE_HOST=127.0.0.1:<port>), real webhook payloads signed with
// the real HMAC, the `svc link` CLI, real uploads and real app processes:
//   push → queued svc/release → upload with the commit header → release active → check success + URL;
//   superseded / older commits refused; PR comment data-restore rollback in two steps → database
//   restored, svc/rollback check; every request svc sent to GitHub valid against GitHub's OpenAPI.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Release } from '../../src/releases/contract.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { appCredentials, githubEnv, type AppCredentials } from '../support/fake-github/app-credentials.js';
import { FakeGithub, type FakeCheckRun } from '../support/fake-github/fake-github.js';
import { commentPayload, example, pushPayload, signedDelivery } from '../support/fake-github/webhooks.js';
import { runCli } from '../support/run-cli.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';
import { packFixture, type Artifact } from '../releases/release-support.js';

const REPO = 'acme/shop';
const REPO_ID = 777001;
const INSTALLATION = 55501;
const SLUG = 'gh-shop';
const SHA = { v1: '1'.repeat(40), v2: '2'.repeat(40), a: '3'.repeat(40), b: '4'.repeat(40), bad: '5'.repeat(40) };

let fake: FakeGithub;
let creds: AppCredentials;
let platform: StartedPlatform;
let account: TestAccount;
let root: string;
let projectId: string;
let comments = 9000;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-e2e-github-'));
  creds = appCredentials();
  fake = new FakeGithub({ appId: creds.appId, publicKey: creds.publicKey });
  await fake.listen();
  fake.install(INSTALLATION, 'acme', { [REPO]: REPO_ID });
  fake.pulls.set(`${REPO}#7`, { baseRef: 'main' });
  fake.setPermission(REPO, 'maintainer', 'admin');
  platform = await startPlatform({ env: githubEnv(creds, fake.origin, { SVC_GITHUB_BUILD_TIMEOUT_SECONDS: '900' }) });
  account = await bootstrapAccount(platform.url);
  projectId = (await account.api<{ project: { id: string } }>('POST', '/api/projects', { name: 'GH Shop', slug: SLUG })).project.id;
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  await fake?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

async function deliver(event: string, payload: unknown): Promise<number> {
  const d = signedDelivery(creds.webhookSecret, event, payload);
  const res = await fetch(`${platform.url}/api/github/webhooks`, { method: 'POST', headers: d.headers, body: d.body });
  await res.arrayBuffer();
  return res.status;
}

async function until<T>(what: string, probe: () => T | undefined | null | false, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = probe();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `timed out waiting for ${what}\ninvalid: ${fake.invalid.join('\n')}\nrequests: ${fake.requests.map((r) => `${r.method} ${r.path} ${r.status}`).join('\n')}\nserver:\n${platform.logs().slice(-4000)}`,
  );
}

const run = (sha: string, name = 'svc/release'): FakeCheckRun | undefined => fake.runs(sha, name).at(-1);

async function upload(artifact: Artifact, sha: string): Promise<{ status: number; body: { release?: Release; error?: { code: string } } }> {
  const res = await fetch(`${platform.url}/api/projects/${projectId}/releases`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${account.accessToken}`,
      'content-type': 'application/vnd.svc.deploy+gzip',
      'x-svc-artifact-digest': artifact.digest,
      'idempotency-key': `${REPO_ID}-${sha}-${artifact.digest}`,
      'x-svc-commit-sha': sha,
      'x-svc-repository-id': String(REPO_ID),
    },
    body: new Uint8Array(artifact.bytes),
  });
  return { status: res.status, body: (await res.json()) as { release?: Release; error?: { code: string } } };
}

async function viaIngress<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await request(`${platform.url}${path}`, {
    method,
    headers: { host: `${SLUG}.localhost:${platform.port}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.body.json()) as T;
}
const notes = async () => (await viaIngress<{ notes: { text: string }[] }>('GET', '/notes')).notes.map((n) => n.text);

async function prComment(body: string): Promise<number> {
  const payload = commentPayload({
    body,
    commentId: ++comments,
    login: 'maintainer',
    userId: 4001,
    issueNumber: 7,
    repoId: REPO_ID,
    fullName: REPO,
    installationId: INSTALLATION,
  });
  expect(await deliver('issue_comment', payload)).toBe(202);
  return payload.comment.id as number;
}
const reactions = (commentId: number) => fake.reactions.filter((r) => r.commentId === commentId).map((r) => r.content);

describe('GitHub App end to end', () => {
  it('push → queued check → upload → active release → check success with the URL; then a two-step data-restore rollback from a PR comment', async () => {
    // The app is installed (installation.created) and the project linked with the CLI.
    const installed = example('installation', (p) => p.action === 'created');
    installed.installation.id = INSTALLATION;
    installed.installation.account.login = 'acme';
    installed.repositories = [{ id: REPO_ID, name: 'shop', full_name: REPO, private: true, node_id: 'R_1' }];
    expect(await deliver('installation', installed)).toBe(202);
    for (let i = 0; i < 100; i++) {
      const list = await account.api<{ installations: { id: number }[] }>('GET', '/api/github/installations');
      if (list.installations.some((x) => x.id === INSTALLATION)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const cli = await runCli(['link', '--repo', REPO, '--branch', 'main', '--project', SLUG, '--json'], {
      home: root,
      env: { SVC_TOKEN: account.accessToken, SVC_SERVER: platform.url },
      timeoutMs: 60_000,
    });
    expect(cli.exitCode, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout).link).toMatchObject({
      repository: { id: REPO_ID, fullName: REPO },
      branch: 'main',
      installationId: INSTALLATION,
      status: 'ok',
    });

    // 1. push → svc/release queued on the head commit.
    expect(await deliver('push', pushPayload({ sha: SHA.v1, repoId: REPO_ID, fullName: REPO, installationId: INSTALLATION }))).toBe(202);
    const queued = await until('the queued check', () => run(SHA.v1));
    expect(queued).toMatchObject({ status: 'queued', output: { title: 'Waiting for the build' } });

    // 2. CI uploads the artifact of that commit (normal upload API + commit headers) → active.
    const v1 = await packFixture('healthy', root);
    const first = await upload(v1, SHA.v1);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const rel1 = first.body.release!;
    expect(rel1.status).toBe('active');
    const done1 = await until('svc/release success', () => (run(SHA.v1)?.conclusion === 'success' ? run(SHA.v1) : undefined));
    const appUrl = `http://${SLUG}.localhost:${platform.port}`;
    expect(done1.output?.title).toBe(`Active at ${appUrl}`);
    expect(done1.output?.summary).toContain(rel1.id);
    expect(done1.output?.summary).toContain(`sha256:${rel1.digest.slice(0, 16)}`);
    for (const phase of ['Artifact verified', 'Snapshot taken', 'Migrations applied', 'Started', 'Health check passed', 'Active'])
      expect(done1.output?.summary).toContain(phase);
    expect(done1.details_url).toBe(`${platform.url}/projects/${projectId}/releases/${rel1.id}`);
    expect(done1.history.map((b) => b.status ?? 'completed')).toContain('in_progress');
    const deployment1 = await until('deployment success', () =>
      fake.deployments.find((d) => d.ref === SHA.v1 && d.statuses.some((s) => s.state === 'success')),
    );
    expect(deployment1.body).toMatchObject({ auto_merge: false, required_contexts: [], environment: 'production' });
    expect(deployment1.statuses.map((s) => s.state)).toEqual(['in_progress', 'success']);
    expect(deployment1.statuses[1]!.environment_url).toBe(appUrl);
    await viaIngress('POST', '/notes', { text: 'before v2' });

    // A failing release (bad migration) ends its check as failure with the reason and the restored state.
    await deliver('push', pushPayload({ sha: SHA.bad, repoId: REPO_ID, fullName: REPO, installationId: INSTALLATION }));
    await until('bad queued', () => run(SHA.bad));
    const bad = await upload(await packFixture('bad-migration', root), SHA.bad);
    expect(bad.body.release?.status).toBe('failed');
    const failedRun = await until('svc/release failure', () => (run(SHA.bad)?.conclusion === 'failure' ? run(SHA.bad) : undefined));
    expect(failedRun.output?.title).toBe('Failed at migrate: SVC_MIGRATION_FAILED');
    expect(failedRun.output?.summary).toContain(`The previous release \`${rel1.id}\` is serving again; the database was restored from the pre-deploy snapshot`);
    await until('deployment failure', () => fake.deployments.find((d) => d.ref === SHA.bad)?.statuses.some((st) => st.state === 'failure'));
    expect(await notes()).toEqual(['before v2']);

    // 3. Two pushes in quick succession: A is superseded by B; A's upload is refused.
    await deliver('push', pushPayload({ sha: SHA.a, repoId: REPO_ID, fullName: REPO, installationId: INSTALLATION }));
    await deliver('push', pushPayload({ sha: SHA.b, repoId: REPO_ID, fullName: REPO, installationId: INSTALLATION }));
    await until('A superseded', () => run(SHA.a)?.conclusion === 'skipped');
    const refusedA = await upload(await packFixture('healthy-v2', root), SHA.a);
    expect(refusedA.status).toBe(409);
    expect(refusedA.body.error?.code).toBe('SVC_GITHUB_COMMIT_SUPERSEDED');

    // 4. v2 (commit v2, pushed last) becomes active; its pre-deploy snapshot holds "before v2".
    await deliver('push', pushPayload({ sha: SHA.v2, repoId: REPO_ID, fullName: REPO, installationId: INSTALLATION }));
    await until('v2 queued', () => run(SHA.v2));
    const second = await upload(await packFixture('healthy-v2', root), SHA.v2);
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    const rel2 = second.body.release!;
    expect(rel2).toMatchObject({ status: 'active', predecessorId: rel1.id });
    await until('v2 success', () => run(SHA.v2)?.conclusion === 'success');
    expect(run(SHA.b)?.conclusion).toBe('skipped'); // B (older than v2) was superseded by the v2 push
    await viaIngress('POST', '/notes', { text: 'after v2' });
    expect(await notes()).toEqual(['before v2', 'after v2']);

    // An older commit never replaces the newer active release (a re-run of v1's workflow).
    const older = await upload(
      // The extra file is written before packing starts (awaited), so the pack never sees it half-written.
      await packFixture('healthy', root, async (dir) => {
        await writeFile(join(dir, 'dist', 'extra.txt'), 'x');
      }),
      SHA.v1,
    );
    expect(older.status).toBe(409);
    expect(older.body.error?.code).toBe('SVC_GITHUB_COMMIT_SUPERSEDED');

    // 5. PR comment, step one: --restore-data without the phrase → what would be lost + the exact phrase.
    const ask = await prComment(`/svc rollback ${rel1.id} --restore-data`);
    await until('the warning reply', () => reactions(ask).includes('-1'));
    const warning = fake.comments.at(-1)!.body;
    expect(warning).toContain('replaces its database');
    expect(warning).toMatch(/every database write made since \S+/);
    expect(warning).toContain(`/svc rollback ${rel1.id} --restore-data --confirm "restore ${SLUG}"`);
    expect(reactions(ask)).toEqual(['eyes', '-1']);
    expect(await notes()).toEqual(['before v2', 'after v2']);

    // Step two: the exact phrase → rollback with data restore, 🚀, reply, svc/rollback check on v1's commit.
    const confirm = await prComment(`/svc rollback ${rel1.id} --restore-data --confirm "restore ${SLUG}"`);
    await until('the rollback reply', () => reactions(confirm).includes('rocket') || reactions(confirm).includes('-1'), 120_000);
    expect(reactions(confirm)).toEqual(['eyes', 'rocket']);
    expect(fake.comments.at(-1)!.body).toContain(`is back on \`${rel1.id}\``);
    expect(await notes()).toEqual(['before v2']);
    const rollbackCheck = await until('svc/rollback success', () =>
      run(SHA.v1, 'svc/rollback')?.conclusion === 'success' ? run(SHA.v1, 'svc/rollback') : undefined,
    );
    expect(rollbackCheck.output?.summary).toContain('restored from the pre-deploy snapshot');
    expect(rollbackCheck.output?.summary).toContain('@maintainer');
    await until('deployment of v1 marked success again', () => deployment1.statuses.length === 3 && deployment1.statuses[2]!.state === 'success');

    // Audited with the GitHub actor.
    const feed = await account.api<{ events: { kind: string; actor: { type: string; name: string | null }; metadata: Record<string, unknown> }[] }>(
      'GET',
      `/api/projects/${projectId}/audit`,
    );
    const commands = feed.events.filter((e) => e.kind === 'github.command');
    expect(commands).toHaveLength(2);
    expect(commands.every((e) => e.actor.type === 'github' && e.actor.name === 'maintainer')).toBe(true);
    expect(feed.events.find((e) => e.kind === 'rollback.restore_data')?.actor).toMatchObject({ type: 'github', name: 'maintainer' });

    // 6. "Re-run" on v2's svc/release check re-releases its retained artifact (v2 is the branch head).
    const rerun = example('check_run', (p) => p.action === 'rerequested');
    rerun.check_run.id = run(SHA.v2)!.id;
    rerun.check_run.name = 'svc/release';
    rerun.check_run.head_sha = SHA.v2;
    rerun.check_run.app.id = creds.appId;
    rerun.repository.id = REPO_ID;
    rerun.repository.full_name = REPO;
    expect(await deliver('check_run', rerun)).toBe(202);
    await until('v2 re-released (svc/rollback success on v2)', () => run(SHA.v2, 'svc/rollback')?.conclusion === 'success', 120_000);
    expect((await viaIngress<{ release: string }>('GET', '/')).release).toBe(rel2.id);

    // 7. `svc rollback` from the CLI reports to the svc/rollback check of the target release's commit.
    const before = fake.runs(SHA.v1, 'svc/rollback').length;
    const cliRollback = await runCli(['rollback', rel1.id, '--project', SLUG, '--json'], {
      home: root,
      env: { SVC_TOKEN: account.accessToken, SVC_SERVER: platform.url },
      timeoutMs: 120_000,
    });
    expect(cliRollback.exitCode, cliRollback.stderr).toBe(0);
    const cliCheck = await until(
      'svc/rollback from the CLI',
      () => fake.runs(SHA.v1, 'svc/rollback').length === before + 1 && run(SHA.v1, 'svc/rollback')?.conclusion === 'success',
    );
    expect(cliCheck).toBe(true);
    expect(run(SHA.v1, 'svc/rollback')!.output?.summary).toContain('Code-only rollback');

    // A suspended installation shows the link as broken in the CLI (instead of failing silently).
    const suspend = example('installation', (p) => p.action === 'suspend');
    suspend.installation.id = INSTALLATION;
    expect(await deliver('installation', suspend)).toBe(202);
    let shown = '';
    for (let i = 0; i < 50 && !shown.includes('broken'); i++) {
      shown = (
        await runCli(['link', '--project', SLUG], {
          home: root,
          env: { SVC_TOKEN: account.accessToken, SVC_SERVER: platform.url, NO_COLOR: '1' },
          timeoutMs: 60_000,
        })
      ).stdout;
      if (!shown.includes('broken')) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(shown).toMatch(/Status\s+broken: The svc GitHub App installation is suspended/);

    // 8. Every request svc sent to the GitHub API was valid against GitHub's OpenAPI description.
    expect(fake.invalid).toEqual([]);
    expect(fake.requests.every((r) => r.operationId !== null)).toBe(true);
    expect(new Set(fake.requests.map((r) => r.operationId))).toEqual(
      new Set([
        'apps/create-installation-access-token',
        'checks/create',
        'checks/update',
        'repos/create-deployment',
        'repos/create-deployment-status',
        'reactions/create-for-issue-comment',
        'issues/create-comment',
        'pulls/get',
        'repos/get-collaborator-permission-level',
      ]),
    );
  }, 300_000);
});

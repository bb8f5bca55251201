// Pull requests into a linked branch: svc/preview check, transient preview Deployment and one comment
// edited in place, through opened → synchronize → preview release → closed; the live limit, forks, and a
// preview release never reported as svc/release or into production. GitHub is the fake (every request
// validated against GitHub's OpenAPI description); previews are the in-test lifecycle.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PREVIEW_COMMENT_MARKER } from '../../src/github/preview-comment.js';
import { sweepChecks } from '../../src/github/sweep-checks.js';
import { pullRequestPayload, pushPayload } from '../support/fake-github/webhooks.js';
import { REPO, REPO_ID, startPreviewHarness, type PreviewHarness } from './preview-harness.js';

const SHA1 = 'a'.repeat(40);
const SHA2 = 'b'.repeat(40);
const URL7 = 'http://pr-7--hello.localhost:7070';
let h: PreviewHarness;

beforeEach(async () => {
  h = await startPreviewHarness();
});
afterEach(async () => {
  await h?.close();
});

const pr = (action: Parameters<typeof pullRequestPayload>[0]['action'], sha: string, over: Partial<Parameters<typeof pullRequestPayload>[0]> = {}) =>
  pullRequestPayload({ action, number: 7, sha, headRef: 'feature/login', title: 'Add login', login: 'octocat', ...over });
const commentCreates = () => h.fake.requests.filter((r) => r.operationId === 'issues/create-comment').length;
const appComments = () => h.fake.comments.filter((c) => c.appId !== null);

describe('pull request opened', () => {
  it('opens the preview, queues svc/preview on the head, creates a transient preview deployment and the comment', async () => {
    const res = await h.deliver('pull_request', pr('opened', SHA1));
    expect(res.statusCode).toBe(202);
    expect(h.results.at(-1)).toEqual({ event: 'pull_request', result: { outcome: 'ready', projectId: h.project.id, number: 7, superseded: [] } });
    expect(h.previews.calls).toEqual([
      {
        op: 'open',
        input: { parentProjectId: h.project.id, number: 7, title: 'Add login', author: 'octocat', headRef: 'feature/login', headSha: SHA1, fork: false },
      },
    ]);
    const runs = h.fake.runs(SHA1, 'svc/preview');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'queued', conclusion: null, output: { title: 'Waiting for the build' } });
    expect(runs[0]!.output?.summary).toContain(URL7);
    expect(runs[0]!.output?.summary).toContain('pr-7--hello');
    const [deployment, ...others] = h.fake.deploymentsIn('preview/pr-7');
    expect(others).toEqual([]);
    expect(deployment).toMatchObject({
      ref: SHA1,
      body: { transient_environment: true, production_environment: false, auto_merge: false, required_contexts: [] },
    });
    expect(deployment!.statuses.map((s) => s.state)).toEqual(['queued']);
    const comments = appComments();
    expect(comments).toHaveLength(1);
    expect(comments[0]).toMatchObject({ repo: REPO, issue: 7 });
    const body = comments[0]!.body;
    expect(body.startsWith(PREVIEW_COMMENT_MARKER)).toBe(true);
    expect(body).toContain('Waiting for the build');
    expect(body).toContain(URL7);
    expect(body).toContain(`[aaaaaaa](https://github.com/${REPO}/commit/${SHA1})`);
    expect(body).toContain('2026-03-01T12:00:00.000Z');
    expect(h.fake.checkRuns.filter((r) => r.name === 'svc/release')).toEqual([]);
    // Opening a preview may take a while (a data copy): pull request events have their own lane, pushes never wait for them.
    expect(h.plane.db.prepare("SELECT lane FROM github_jobs WHERE kind = 'delivery'").all()).toEqual([{ lane: 'deliveries:pull_requests' }]);
    expect(h.fake.invalid).toEqual([]);
  });

  it('does nothing twice for a redelivered event, and ignores other actions and unlinked bases', async () => {
    await h.deliver('pull_request', pr('opened', SHA1), { id: 'd-1' });
    await h.deliver('pull_request', pr('opened', SHA1), { id: 'd-2' });
    await h.deliver('pull_request', pr('labeled', SHA1));
    await h.deliver('pull_request', pr('opened', SHA2, { number: 9, baseRef: 'develop' }));
    expect(h.results.map((r) => (r.result as { outcome: string; reason?: string }).reason ?? (r.result as { outcome: string }).outcome)).toEqual([
      'ready',
      'already_known',
      'action_ignored',
      'unlinked_branch',
    ]);
    expect(h.previews.calls).toHaveLength(1);
    expect(h.fake.runs(SHA1, 'svc/preview')).toHaveLength(1);
    expect(commentCreates()).toBe(1);
  });

  it("never takes a person's comment carrying the marker for its own", async () => {
    const planted = h.fake.addUserComment(REPO, 7, `${PREVIEW_COMMENT_MARKER}\nhello`);
    await h.deliver('pull_request', pr('opened', SHA1));
    expect(planted.history).toEqual([`${PREVIEW_COMMENT_MARKER}\nhello`]);
    expect(appComments()).toHaveLength(1);
    expect(h.fake.invalid).toEqual([]);
  });
});

describe('the comment through the durable queue', () => {
  it('retries a failed sync with backoff, and finds its own comment when its record of it is lost', async () => {
    h.fake.failOperation.set('issues/list-comments', 1);
    await h.deliver('pull_request', pr('opened', SHA1));
    expect(appComments()).toHaveLength(0);
    const job = () => h.plane.db.prepare("SELECT state, attempts FROM github_jobs WHERE kind = 'sync-preview-comment'").get();
    expect(job()).toEqual({ state: 'pending', attempts: 1 });
    h.clock.advance(5_000);
    await h.drain();
    expect(appComments()).toHaveLength(1);
    expect(job()).toEqual({ state: 'done', attempts: 1 });
    // As after a crash between GitHub creating the comment and svc recording it.
    h.plane.db.prepare('UPDATE github_pull_requests SET comment_id = NULL, version = version + 1').run();
    await h.deliver('pull_request', pr('synchronize', SHA2));
    expect(commentCreates()).toBe(1);
    expect(appComments()).toHaveLength(1);
    expect(appComments()[0]!.body).toContain('bbbbbbb');
    expect(h.fake.invalid).toEqual([]);
  });
});

describe('pull request synchronize', () => {
  it('edits the same comment, supersedes the older head and retires its deployment', async () => {
    await h.deliver('pull_request', pr('opened', SHA1));
    await h.deliver('pull_request', pr('synchronize', SHA2));
    expect(h.results.at(-1)!.result).toMatchObject({ outcome: 'ready', superseded: [SHA1] });
    const older = h.fake.runs(SHA1, 'svc/preview')[0]!;
    expect(older).toMatchObject({ status: 'completed', conclusion: 'neutral', output: { title: 'Superseded by bbbbbbb' } });
    expect(h.fake.runs(SHA2, 'svc/preview')[0]).toMatchObject({ status: 'queued' });
    const [first, second] = h.fake.deploymentsIn('preview/pr-7');
    expect(first!.statuses.map((s) => s.state)).toEqual(['queued', 'inactive']);
    expect(second).toMatchObject({ ref: SHA2, body: { transient_environment: true } });
    // One comment ever created; every change after it is a PATCH of that comment.
    expect(commentCreates()).toBe(1);
    const [comment] = appComments();
    expect(comment!.history.length).toBeGreaterThanOrEqual(2);
    expect(comment!.body).toContain(`[bbbbbbb](https://github.com/${REPO}/commit/${SHA2})`);
    expect(h.fake.requests.filter((r) => r.operationId === 'issues/update-comment').length).toBeGreaterThanOrEqual(1);
    expect(h.fake.invalid).toEqual([]);
  });

  it("refuses an upload of a commit that is no longer the pull request's head", async () => {
    await h.deliver('pull_request', pr('opened', SHA1));
    await h.deliver('pull_request', pr('synchronize', SHA2));
    expect(() => h.previewRelease(SHA1, 'active')).toThrow(expect.objectContaining({ code: 'SVC_GITHUB_COMMIT_SUPERSEDED' }));
    expect(() => h.github.observer.admit!(h.previewProject.id, { commitSha: SHA2, repositoryId: REPO_ID })).not.toThrow();
  });
});

describe('a preview release', () => {
  it('reports its phases on svc/preview, the deployment goes success with the URL, the comment says ready', async () => {
    await h.deliver('pull_request', pr('opened', SHA1));
    const releaseId = h.previewRelease(SHA1, 'active');
    await h.drain();
    const run = h.fake.runs(SHA1, 'svc/preview')[0]!;
    expect(run).toMatchObject({ status: 'completed', conclusion: 'success', external_id: expect.any(String), output: { title: `Active at ${URL7}` } });
    expect(run.output?.summary).toContain(`\`${releaseId}\``);
    expect(run.output?.summary).toContain('Snapshot taken (4096 bytes)');
    expect(run.output?.summary).toContain('Migrations applied (001_init.sql)');
    expect(run.output?.summary).toContain('Health check passed');
    expect(run.details_url).toBe(`http://127.0.0.1:7070/projects/${h.previewProject.id}/releases/${releaseId}`);
    const [deployment] = h.fake.deploymentsIn('preview/pr-7');
    expect(deployment!.statuses.map((s) => s.state)).toEqual(['queued', 'in_progress', 'success']);
    expect(deployment!.statuses.at(-1)).toMatchObject({ environment_url: URL7, auto_inactive: true });
    const body = appComments()[0]!.body;
    expect(body).toContain('**Ready**');
    expect(body).toContain(releaseId);
    expect(body).toContain(`| **URL** | ${URL7} |`);
    expect(body).toContain(`[aaaaaaa](https://github.com/${REPO}/commit/${SHA1})`);
    expect(commentCreates()).toBe(1);
    // Never svc/release, never the production environment.
    expect(h.fake.checkRuns.filter((r) => r.name !== 'svc/preview')).toEqual([]);
    expect(h.fake.deployments.filter((d) => d.environment !== 'preview/pr-7')).toEqual([]);
    expect(h.fake.invalid).toEqual([]);
  });

  it('reports a failure with its step, code and reason', async () => {
    await h.deliver('pull_request', pr('opened', SHA1));
    h.previewRelease(SHA1, { step: 'health', code: 'SVC_HEALTH_TIMEOUT', message: 'GET /health did not answer 200 within 30 s' });
    await h.drain();
    const run = h.fake.runs(SHA1, 'svc/preview')[0]!;
    expect(run).toMatchObject({ conclusion: 'failure', output: { title: 'Failed at health: SVC_HEALTH_TIMEOUT' } });
    expect(run.output?.summary).toContain('**Reason:** GET /health did not answer 200 within 30 s');
    expect(h.fake.deploymentsIn('preview/pr-7')[0]!.statuses.at(-1)).toMatchObject({ state: 'failure', description: 'SVC_HEALTH_TIMEOUT at health' });
    const body = appComments()[0]!.body;
    expect(body).toContain('**Failed** at health: `SVC_HEALTH_TIMEOUT`');
    expect(body).toContain('GET /health did not answer 200 within 30 s');
    expect(h.fake.invalid).toEqual([]);
  });

  it('is completed by the sweep when the outcome was missed', async () => {
    await h.deliver('pull_request', pr('opened', SHA1));
    h.previewRelease(SHA1, 'active', { missOutcome: true });
    await h.drain();
    expect(h.fake.runs(SHA1, 'svc/preview')[0]).toMatchObject({ status: 'in_progress' });
    expect(h.github.sweep().reconciled).toBe(1);
    await h.drain();
    expect(h.fake.runs(SHA1, 'svc/preview')[0]).toMatchObject({ status: 'completed', conclusion: 'success', output: { title: `Active at ${URL7}` } });
  });

  it("leaves the parent project's production releases to svc/release", async () => {
    await h.deliver('push', pushPayload({ sha: SHA2 }));
    expect(h.fake.runs(SHA2, 'svc/release')).toHaveLength(1);
    expect(() => h.github.observer.admit!(h.project.id, { commitSha: SHA2, repositoryId: REPO_ID })).not.toThrow();
    expect(h.fake.runs(SHA2, 'svc/preview')).toEqual([]);
  });
});

describe('previews not deployed', () => {
  it('fails svc/preview with the live limit, and the comment says the same', async () => {
    h.previews.limit = 1;
    await h.deliver('pull_request', pr('opened', SHA2, { number: 8 }));
    await h.deliver('pull_request', pr('opened', SHA1));
    expect(h.results.at(-1)!.result).toMatchObject({ outcome: 'limit' });
    const run = h.fake.runs(SHA1, 'svc/preview')[0]!;
    expect(run).toMatchObject({ status: 'completed', conclusion: 'failure', output: { title: '1 live previews, the limit is 1' } });
    expect(run.output?.summary).toContain('close a pull request or raise SVC_PREVIEW_LIMIT');
    expect(h.fake.deploymentsIn('preview/pr-7')).toEqual([]);
    const body = appComments().find((c) => c.issue === 7)!.body;
    expect(body).toContain('1 live previews, the limit is 1; close a pull request or raise SVC_PREVIEW_LIMIT');
    expect(h.fake.invalid).toEqual([]);
  });

  it('deploys nothing for a fork and explains how a maintainer can deploy it deliberately', async () => {
    await h.deliver('pull_request', pr('opened', SHA1, { fork: true }));
    await h.deliver('pull_request', pr('opened', SHA2, { number: 11, fork: 'deleted' }));
    expect(h.previews.calls.map((c) => (c.input as { fork: boolean }).fork)).toEqual([true, true]);
    expect(h.results.map((r) => (r.result as { outcome: string }).outcome)).toEqual(['fork', 'fork']);
    expect(h.fake.checkRuns).toEqual([]);
    expect(h.fake.deployments).toEqual([]);
    const body = appComments().find((c) => c.issue === 7)!.body;
    expect(body).toContain('never deployed automatically');
    expect(body).toContain('no OIDC token');
    expect(body).toContain('git push origin');
    expect(h.fake.invalid).toEqual([]);
  });
});

describe('pull request closed', () => {
  it('removes the preview: deployment inactive, open check completed, comment edited to removed', async () => {
    await h.deliver('pull_request', pr('opened', SHA1));
    await h.deliver('pull_request', pr('closed', SHA1, { merged: true }));
    expect(h.previews.calls.at(-1)).toEqual({ op: 'close', input: { parentProjectId: h.project.id, number: 7, merged: true } });
    expect(h.fake.runs(SHA1, 'svc/preview')[0]).toMatchObject({ status: 'completed', conclusion: 'neutral', output: { title: 'Pull request merged' } });
    const [deployment] = h.fake.deploymentsIn('preview/pr-7');
    expect(deployment!.statuses.map((s) => s.state)).toEqual(['queued', 'inactive']);
    expect(commentCreates()).toBe(1);
    const body = appComments()[0]!.body;
    expect(body).toContain('Preview removed** (pull request merged)');
    expect(body).not.toContain('| **URL** |');
    // Reopened: the preview comes back on the same comment.
    await h.deliver('pull_request', pr('reopened', SHA1));
    expect(h.fake.runs(SHA1, 'svc/preview').at(-1)).toMatchObject({ status: 'queued' });
    expect(deployment!.statuses.map((s) => s.state)).toEqual(['queued', 'inactive', 'queued']);
    expect(commentCreates()).toBe(1);
    expect(appComments()[0]!.body).toContain('Waiting for the build');
    expect(h.fake.invalid).toEqual([]);
  });

  it('says nothing was deployed when a fork pull request closes', async () => {
    await h.deliver('pull_request', pr('opened', SHA1, { fork: true }));
    await h.deliver('pull_request', pr('closed', SHA1, { fork: true }));
    expect(appComments()[0]!.body).toContain('Pull request closed; no preview was deployed.');
    expect(h.fake.deployments).toEqual([]);
  });
});

describe('a pull request whose workflow never uploads', () => {
  it('times out the waiting svc/preview check after the build timeout, with help on adding the workflow', async () => {
    await h.deliver('pull_request', pr('opened', SHA1));
    await h.drain();
    expect(sweepChecks(h.plane.context, 60 * 60_000)).toMatchObject({ timedOut: 0 });
    h.clock.advance(60 * 60_000);
    expect(sweepChecks(h.plane.context, 60 * 60_000)).toMatchObject({ timedOut: 1 });
    await h.drain();
    const [run] = h.fake.runs(SHA1, 'svc/preview');
    expect(run).toMatchObject({ status: 'completed', conclusion: 'timed_out', output: { title: 'No build uploaded within 60 minutes' } });
    expect(run!.output?.summary).toContain('pull_request');
    expect(sweepChecks(h.plane.context, 60 * 60_000)).toMatchObject({ timedOut: 0 });
  });
});

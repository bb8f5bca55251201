// The pure parts of previews on GitHub: which pull_request events do what (forks included), the check's
// preview-only states and the comment's body.
import { describe, expect, it } from 'vitest';
import { renderCheck } from '../../src/github/check-model.js';
import { PREVIEW_COMMENT_MARKER, renderPreviewComment, type PreviewCommentModel } from '../../src/github/preview-comment.js';
import { decidePullRequest, type PullRequestPayload } from '../../src/github/pull-request-handler.js';
import { pullRequestPayload } from '../support/fake-github/webhooks.js';

const SHA = 'c'.repeat(40);
const payload = (over: Partial<Parameters<typeof pullRequestPayload>[0]> = {}) =>
  pullRequestPayload({ action: 'opened', number: 3, sha: SHA, ...over }) as unknown as PullRequestPayload;

describe('decidePullRequest', () => {
  it('opens on opened, reopened and synchronize; closes with merged; ignores the rest', () => {
    expect(decidePullRequest(payload())).toMatchObject({ action: 'open', reopened: false, input: { number: 3, headSha: SHA, fork: false } });
    expect(decidePullRequest(payload({ action: 'reopened' }))).toMatchObject({ action: 'open', reopened: true });
    expect(decidePullRequest(payload({ action: 'synchronize' }))).toMatchObject({ action: 'open' });
    expect(decidePullRequest(payload({ action: 'closed', merged: true }))).toEqual({ action: 'close', number: 3, merged: true });
    expect(decidePullRequest(payload({ action: 'closed' }))).toEqual({ action: 'close', number: 3, merged: false });
    expect(decidePullRequest(payload({ action: 'labeled' }))).toEqual({ action: 'ignore', reason: 'action_ignored' });
    expect(decidePullRequest(payload({ action: 'edited' }))).toEqual({ action: 'ignore', reason: 'action_ignored' });
    const noInstallation = payload();
    noInstallation.installation = null;
    expect(decidePullRequest(noInstallation)).toEqual({ action: 'ignore', reason: 'no_installation' });
  });

  it('treats another head repository, or a deleted one, as a fork', () => {
    expect(decidePullRequest(payload({ fork: true }))).toMatchObject({ input: { fork: true } });
    expect(decidePullRequest(payload({ fork: 'deleted' }))).toMatchObject({ input: { fork: true } });
  });
});

describe('renderPreviewComment', () => {
  const base: PreviewCommentModel = {
    state: 'ready',
    number: 3,
    headSha: SHA,
    url: 'https://pr-3--shop.example.com',
    previewSlug: 'pr-3--shop',
    releaseId: 'rel_1',
    at: Date.parse('2026-03-01T12:00:00.000Z'),
  };
  it('starts with the marker and shows status, URL, linked commit and UTC time', () => {
    const body = renderPreviewComment(base, 'https://github.com/acme/shop');
    expect(body.split('\n')[0]).toBe(PREVIEW_COMMENT_MARKER);
    expect(body).toContain('✅ **Ready** (`rel_1`)');
    expect(body).toContain('| **URL** | https://pr-3--shop.example.com |');
    expect(body).toContain(`| **Commit** | [ccccccc](https://github.com/acme/shop/commit/${SHA}) |`);
    expect(body).toContain('| **Updated** | 2026-03-01T12:00:00.000Z |');
  });
  it('drops the URL once removed, and says when nothing was ever deployed', () => {
    expect(renderPreviewComment({ ...base, state: 'removed', merged: false }, 'https://github.com/acme/shop')).not.toContain('**URL**');
    expect(renderPreviewComment({ ...base, state: 'removed', merged: true, deployed: false }, 'x')).toContain('Pull request merged; no preview was deployed.');
  });
});

describe('svc/preview rendering', () => {
  const ctx = { projectSlug: 'pr-3--shop', appUrl: 'https://pr-3--shop.example.com', detailsUrl: null, actionRef: 'svc-dev/svc/action@v1' };
  const model = {
    kind: 'preview' as const,
    number: 3,
    url: 'https://pr-3--shop.example.com',
    previewProjectId: 'prj_p',
    previewSlug: 'pr-3--shop',
    queuedAt: 0,
    phases: [],
  };
  it('renders waiting, superseded, closed and limit; release phases as svc/release does', () => {
    expect(renderCheck({ ...model, state: 'waiting' }, ctx)).toMatchObject({ status: 'queued', output: { title: 'Waiting for the build' } });
    expect(renderCheck({ ...model, state: 'superseded', supersededBy: 'd'.repeat(40), finishedAt: 1 }, ctx)).toMatchObject({
      conclusion: 'neutral',
      output: { title: 'Superseded by ddddddd' },
    });
    expect(renderCheck({ ...model, state: 'closed', merged: false, finishedAt: 1 }, ctx)).toMatchObject({
      conclusion: 'neutral',
      output: { title: 'Pull request closed' },
    });
    expect(renderCheck({ ...model, state: 'limit', limit: { limit: 10, live: 10 }, finishedAt: 1 }, ctx)).toMatchObject({
      conclusion: 'failure',
      output: { title: '10 live previews, the limit is 10' },
    });
    const active = renderCheck({ ...model, state: 'success', releaseId: 'rel_9', phases: [{ name: 'verified', at: 0 }], finishedAt: 2000 }, ctx);
    expect(active).toMatchObject({ conclusion: 'success', external_id: 'rel_9', output: { title: 'Active at https://pr-3--shop.example.com' } });
  });
});

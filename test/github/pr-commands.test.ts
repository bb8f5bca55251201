// PR comment commands against the fake GitHub: permission from the API (never author_association),
// reactions, replies, ignored non-PR issues, redeliveries, audit with the GitHub actor.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commentPayload } from '../support/fake-github/webhooks.js';
import { INSTALLATION, REPO, startGithubHarness, type GithubHarness } from './github-harness.js';

let h: GithubHarness;
let nextComment = 5000;

beforeEach(async () => {
  h = await startGithubHarness();
  h.fake.pulls.set(`${REPO}#1`, { baseRef: 'main' });
  h.fake.setPermission(REPO, 'reader', 'read');
  h.fake.setPermission(REPO, 'writer', 'write');
});
afterEach(async () => {
  await h?.close();
});

function comment(body: string, login = 'writer', extra: Partial<Parameters<typeof commentPayload>[0]> = {}) {
  return commentPayload({ body, commentId: ++nextComment, login, userId: login === 'writer' ? 11 : 12, installationId: INSTALLATION, ...extra });
}
const reactionsOf = (id: number) => h.fake.reactions.filter((r) => r.commentId === id).map((r) => r.content);
const audit = () =>
  h.plane.db.prepare("SELECT actor_type, actor_id, actor_name, metadata FROM audit_events WHERE kind = 'github.command' ORDER BY created_at").all() as {
    actor_type: string;
    actor_id: string;
    actor_name: string;
    metadata: string;
  }[];

describe('/svc commands in pull-request comments', () => {
  it('refuses a read-only collaborator even when the payload says OWNER', async () => {
    const payload = comment('/svc rollback rel_old', 'reader');
    payload.comment.author_association = 'OWNER';
    await h.deliver('issue_comment', payload);
    expect(reactionsOf(payload.comment.id)).toEqual(['eyes', '-1']);
    expect(h.fake.comments).toHaveLength(1);
    expect(h.fake.comments[0]!.body).toMatch(/needs write access.*you have `read`/s);
    expect(h.fake.requests.some((r) => r.operationId === 'repos/get-collaborator-permission-level')).toBe(true);
    const events = audit();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actor_type: 'github', actor_id: 'github:12', actor_name: 'reader' });
    expect(JSON.parse(events[0]!.metadata)).toMatchObject({ outcome: 'SVC_ROLLBACK_PERMISSION_REQUIRED', ok: false, permission: 'read', pullRequest: 1 });
    expect(h.fake.invalid).toEqual([]);
  });

  it('ignores a comment on an issue that is not a pull request', async () => {
    const payload = comment('/svc rollback rel_old', 'writer', { pullRequest: false });
    await h.deliver('issue_comment', payload);
    expect(h.results.at(-1)!.result).toEqual({ outcome: 'ignored', reason: 'not_a_pull_request' });
    expect(h.fake.reactions).toHaveLength(0);
    expect(h.fake.comments).toHaveLength(0);
  });

  it('ignores ordinary comments and edits', async () => {
    const before = h.fake.requests.length;
    await h.deliver('issue_comment', comment('LGTM, ship it'));
    const edited = comment('/svc help');
    edited.action = 'edited';
    await h.deliver('issue_comment', edited);
    expect(h.fake.requests).toHaveLength(before);
  });

  it('answers /svc help with 👀, the help and 🚀', async () => {
    const payload = comment('/svc help');
    await h.deliver('issue_comment', payload);
    expect(reactionsOf(payload.comment.id)).toEqual(['eyes', 'rocket']);
    expect(h.fake.comments[0]!.body).toContain('--confirm "restore hello"');
  });

  it('replies with the usage to a malformed command', async () => {
    const payload = comment('/svc rollback rel_a --force');
    await h.deliver('issue_comment', payload);
    expect(reactionsOf(payload.comment.id)).toEqual(['eyes', '-1']);
    expect(h.fake.comments[0]!.body).toMatch(/Unknown flag `--force`/);
  });

  it('explains a data restore without the exact phrase instead of running it', async () => {
    const payload = comment('/svc rollback rel_a --restore-data --confirm "restore HELLO"');
    await h.deliver('issue_comment', payload);
    expect(reactionsOf(payload.comment.id)).toEqual(['eyes', '-1']);
    expect(h.fake.comments[0]!.body).toMatch(/does not match/);
  });

  it('reports a failed rollback (unknown release) with its code', async () => {
    const payload = comment('/svc rollback rel_missing');
    await h.deliver('issue_comment', payload);
    expect(h.fake.comments[0]!.body).toContain('SVC_RELEASE_NOT_FOUND');
    expect(reactionsOf(payload.comment.id)).toEqual(['eyes', '-1']);
  });

  it('handles a redelivered comment once (no second reply)', async () => {
    const payload = comment('/svc help');
    await h.deliver('issue_comment', payload, { id: 'c-1' });
    await h.deliver('issue_comment', payload, { id: 'c-2' });
    expect(h.fake.comments).toHaveLength(1);
  });

  it('retries after GitHub fails, without repeating side effects', async () => {
    const payload = comment('/svc help');
    h.fake.failNext = 3;
    await h.deliver('issue_comment', payload);
    // The first attempt failed; the job backs off and is retried once the clock passes its time.
    for (let i = 0; i < 8 && h.fake.comments.length === 0; i++) {
      h.clock.advance(120_000);
      await h.drain();
    }
    expect(h.fake.comments).toHaveLength(1);
    expect(reactionsOf(payload.comment.id)).toEqual(['eyes', 'rocket']);
  });
});

describe('commenters GitHub does not list as collaborators', () => {
  it('treats a 404 permission lookup as no permission', async () => {
    const payload = comment('/svc rollback rel_old', 'stranger');
    await h.deliver('issue_comment', payload);
    expect(reactionsOf(payload.comment.id)).toEqual(['eyes', '-1']);
    expect(h.fake.comments[0]!.body).toMatch(/you have `none`/);
  });
});

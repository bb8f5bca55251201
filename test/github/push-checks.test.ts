// push → svc/release check queued on the head commit; redelivery, quick successive pushes (older one
// superseded), deliberate ignores (branch deletion, tags, unlinked branches), build timeout.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { example, pushPayload } from '../support/fake-github/webhooks.js';
import { INSTALLATION, REPO, REPO_ID, startGithubHarness, type GithubHarness } from './github-harness.js';

const SHA1 = 'a'.repeat(40);
const SHA2 = 'b'.repeat(40);
let h: GithubHarness;

beforeEach(async () => {
  h = await startGithubHarness();
});
afterEach(async () => {
  await h?.close();
});

describe('push to a linked branch', () => {
  it('creates a queued svc/release check on the head commit through a real installation token', async () => {
    const res = await h.deliver('push', pushPayload({ sha: SHA1 }));
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ status: 'queued' });
    const runs = h.fake.runs(SHA1, 'svc/release');
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe('queued');
    expect(runs[0]!.output?.title).toBe('Waiting for the build');
    expect(runs[0]!.details_url).toBe(`http://127.0.0.1:7070/projects/${h.project.id}`);
    expect(h.fake.tokensIssued.some((t) => t.installationId === INSTALLATION)).toBe(true);
    expect(h.fake.invalid).toEqual([]);
  });

  it('deduplicates a redelivered push by X-GitHub-Delivery (and by commit)', async () => {
    const payload = pushPayload({ sha: SHA1 });
    const first = await h.deliver('push', payload, { id: 'delivery-1' });
    const again = await h.deliver('push', payload, { id: 'delivery-1' });
    expect(first.statusCode).toBe(202);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ status: 'duplicate' });
    // GitHub's "redeliver" sends a new delivery id for the same push: still one check.
    await h.deliver('push', payload, { id: 'delivery-2' });
    expect(h.fake.runs(SHA1)).toHaveLength(1);
    expect(h.results.filter((r) => r.event === 'push').map((r) => (r.result as { outcome: string }).outcome)).toEqual(['tracked', 'already_known']);
  });

  it('supersedes the older commit when two pushes come in quick succession', async () => {
    await h.send('push', pushPayload({ sha: SHA1 }));
    await h.send('push', pushPayload({ sha: SHA2, before: SHA1 }));
    await h.drain();
    const older = h.fake.runs(SHA1, 'svc/release')[0]!;
    expect(older.status).toBe('completed');
    expect(older.conclusion).toBe('skipped');
    expect(older.output?.title).toBe(`Superseded by ${SHA2.slice(0, 7)}`);
    expect(h.fake.runs(SHA2, 'svc/release')[0]!.status).toBe('queued');
    expect(h.fake.invalid).toEqual([]);
  });

  it('times out a queued check without an upload, telling how to add the Action', async () => {
    await h.deliver('push', pushPayload({ sha: SHA1 }));
    h.clock.advance(599_000);
    expect(h.plane.github.sweep().timedOut).toBe(0);
    h.clock.advance(2_000);
    expect(h.plane.github.sweep().timedOut).toBe(1);
    await h.drain();
    const run = h.fake.runs(SHA1, 'svc/release')[0]!;
    expect(run.conclusion).toBe('timed_out');
    expect(run.output?.summary).toContain('id-token: write');
    expect(run.output?.summary).toContain('uses: ');
    expect(h.fake.invalid).toEqual([]);
  });
});

describe('pushes that are ignored on purpose', () => {
  it('ignores branch deletions, tag pushes and unlinked branches without calling GitHub', async () => {
    const deletion = pushPayload({ sha: '0'.repeat(40) });
    deletion.deleted = true;
    await h.deliver('push', deletion);
    const tag = example('push', (p) => p.ref === 'refs/tags/simple-tag' && Boolean(p.installation));
    await h.deliver('push', tag);
    await h.deliver('push', pushPayload({ sha: SHA1, branch: 'feature' }));
    await h.deliver('push', pushPayload({ sha: SHA2, repoId: REPO_ID + 1, fullName: 'Codertocat/Other' }));
    expect(h.results.map((r) => (r.result as { reason: string }).reason)).toEqual(['branch_deleted', 'branch_deleted', 'unlinked_branch', 'unlinked_branch']);
    expect(h.fake.checkRuns).toHaveLength(0);
  });
});

describe('webhook authenticity', () => {
  it('rejects a forged signature and records nothing', async () => {
    const res = await h.send('push', pushPayload({ sha: SHA1 }), { signatureSecret: 'not-the-secret' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('SVC_GITHUB_SIGNATURE_INVALID');
    await h.drain();
    expect(h.plane.db.prepare('SELECT COUNT(*) AS n FROM github_deliveries').get()).toEqual({ n: 0 });
    expect(h.fake.checkRuns).toHaveLength(0);
  });

  it('rejects a missing signature and a tampered body', async () => {
    const missing = await h.app.inject({
      method: 'POST',
      url: '/api/github/webhooks',
      headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': 'x1' },
      payload: '{}',
    });
    expect(missing.json().error.code).toBe('SVC_GITHUB_SIGNATURE_INVALID');
    const { signedDelivery } = await import('../support/fake-github/webhooks.js');
    const d = signedDelivery(h.creds.webhookSecret, 'push', pushPayload({ sha: SHA1 }));
    const tampered = await h.app.inject({ method: 'POST', url: '/api/github/webhooks', headers: d.headers, payload: d.body.replace(SHA1, SHA2) });
    expect(tampered.statusCode).toBe(401);
  });

  it('answers ping without queueing', async () => {
    const res = await h.send('ping', example('ping'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'pong' });
  });
});

describe('link', () => {
  it('shows the link and its repository', async () => {
    const res = await h.app.inject({ method: 'GET', url: `/api/projects/${h.project.id}/github`, headers: h.owner.headers() });
    expect(res.json().link).toMatchObject({ repository: { id: REPO_ID, fullName: REPO }, branch: 'main', installationId: INSTALLATION, status: 'ok' });
  });
});

describe('upload admission (older commits never replace newer ones)', () => {
  it('refuses an upload for a superseded commit and admits the newest', async () => {
    await h.send('push', pushPayload({ sha: SHA1 }));
    await h.send('push', pushPayload({ sha: SHA2 }));
    await h.drain();
    const admit = h.plane.github.observer.admit!;
    expect(() => admit(h.project.id, { commitSha: SHA1, repositoryId: REPO_ID })).toThrow(expect.objectContaining({ code: 'SVC_GITHUB_COMMIT_SUPERSEDED' }));
    expect(() => admit(h.project.id, { commitSha: SHA2, repositoryId: REPO_ID })).not.toThrow();
    // Uploads from another repository, or of commits svc never saw pushed, are not ordered.
    expect(() => admit(h.project.id, { commitSha: SHA1, repositoryId: REPO_ID + 1 })).not.toThrow();
    expect(() => admit(h.project.id, { commitSha: 'c'.repeat(40), repositoryId: REPO_ID })).not.toThrow();
  });

  it('rejects malformed commit headers on the upload route', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: `/api/projects/${h.project.id}/releases`,
      headers: h.owner.headers({
        'content-type': 'application/vnd.svc.deploy+gzip',
        'x-svc-artifact-digest': 'a'.repeat(64),
        'idempotency-key': 'key-12345678',
        'x-svc-commit-sha': 'HEAD',
      }),
      payload: Buffer.from('x'),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('SVC_BAD_REQUEST');
  });
});

describe('delivery validation and unlink', () => {
  it('rejects deliveries without event/delivery headers or with a non-object body', async () => {
    const { signedDelivery } = await import('../support/fake-github/webhooks.js');
    const d = signedDelivery(h.creds.webhookSecret, 'push', [1, 2]);
    const array = await h.app.inject({ method: 'POST', url: '/api/github/webhooks', headers: d.headers, payload: d.body });
    expect(array.json().error.code).toBe('SVC_GITHUB_DELIVERY_INVALID');
    const noId = signedDelivery(h.creds.webhookSecret, 'push', {});
    delete noId.headers['x-github-delivery'];
    const missing = await h.app.inject({ method: 'POST', url: '/api/github/webhooks', headers: noId.headers, payload: noId.body });
    expect(missing.json().error.code).toBe('SVC_GITHUB_DELIVERY_INVALID');
  });

  it('unlinks (audited); pushes are then ignored', async () => {
    const res = await h.app.inject({ method: 'DELETE', url: `/api/projects/${h.project.id}/github`, headers: h.owner.headers() });
    expect(res.statusCode).toBe(200);
    expect(res.json().link).toBeNull();
    const again = await h.app.inject({ method: 'DELETE', url: `/api/projects/${h.project.id}/github`, headers: h.owner.headers() });
    expect(again.json().error.code).toBe('SVC_GITHUB_LINK_NOT_FOUND');
    await h.deliver('push', pushPayload({ sha: SHA1 }));
    expect(h.results.at(-1)!.result).toMatchObject({ reason: 'unlinked_branch' });
    const kinds = (h.plane.db.prepare("SELECT kind FROM audit_events WHERE kind LIKE 'github.%' ORDER BY created_at").all() as { kind: string }[]).map(
      (r) => r.kind,
    );
    expect(kinds).toEqual(['github.link', 'github.unlink']);
  });
});

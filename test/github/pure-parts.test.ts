// Pure decisions of the GitHub integration: which pushes count, link health, check rendering.
import { describe, expect, it } from 'vitest';
import { renderCheck, type ReleaseCheckModel } from '../../src/github/check-model.js';
import { linkProblem } from '../../src/github/link-store.js';
import { decidePush } from '../../src/github/push-handler.js';
import { verifySignature } from '../../src/github/webhook-route.js';
import { observe } from '../../src/releases/release-observer.js';
import { createLogger } from '../../src/core/logger.js';
import { SvcError } from '../../src/core/errors.js';
import type { Release } from '../../src/releases/contract.js';

const repo = { id: 1, full_name: 'o/r' };
const sha = 'a'.repeat(40);

describe('decidePush', () => {
  it('tracks a branch push with an installation', () => {
    expect(decidePush({ ref: 'refs/heads/main', after: sha, repository: repo, installation: { id: 9 } })).toEqual({
      action: 'track',
      branch: 'main',
      sha,
      repositoryId: 1,
      fullName: 'o/r',
    });
    expect(decidePush({ ref: 'refs/heads/release/v2', after: sha, repository: repo, installation: { id: 9 } })).toMatchObject({ branch: 'release/v2' });
  });
  it('ignores deletions, tags, pushes without installation or commit', () => {
    expect(decidePush({ ref: 'refs/heads/main', after: '0'.repeat(40), deleted: true, repository: repo, installation: { id: 9 } })).toEqual({
      action: 'ignore',
      reason: 'branch_deleted',
    });
    expect(decidePush({ ref: 'refs/heads/main', after: '0'.repeat(40), repository: repo, installation: { id: 9 } })).toEqual({
      action: 'ignore',
      reason: 'branch_deleted',
    });
    expect(decidePush({ ref: 'refs/tags/v1', after: sha, repository: repo, installation: { id: 9 } })).toEqual({ action: 'ignore', reason: 'not_a_branch' });
    expect(decidePush({ ref: 'refs/heads/main', after: sha, repository: repo, installation: null })).toEqual({ action: 'ignore', reason: 'no_installation' });
    expect(decidePush({ ref: 'refs/heads/main', after: 'xyz', repository: repo, installation: { id: 9 } })).toEqual({ action: 'ignore', reason: 'no_commit' });
  });
});

describe('linkProblem', () => {
  it('names why a link is broken', () => {
    expect(linkProblem({ status: 'active' }, true)).toBeNull();
    expect(linkProblem(undefined, true)?.reason).toBe('installation_missing');
    expect(linkProblem({ status: 'deleted' }, true)?.reason).toBe('installation_missing');
    expect(linkProblem({ status: 'suspended' }, true)?.reason).toBe('installation_suspended');
    expect(linkProblem({ status: 'active' }, false)?.reason).toBe('repository_removed');
  });
});

describe('verifySignature', () => {
  it('accepts only the HMAC of the exact bytes', async () => {
    const { createHmac } = await import('node:crypto');
    const body = Buffer.from('{"a":1}');
    const good = `sha256=${createHmac('sha256', 's3cret').update(body).digest('hex')}`;
    expect(verifySignature('s3cret', body, good)).toBe(true);
    expect(verifySignature('s3cret', Buffer.from('{"a":2}'), good)).toBe(false);
    expect(verifySignature('other', body, good)).toBe(false);
    expect(verifySignature('s3cret', body, good.replace('sha256=', 'sha1='))).toBe(false);
    expect(verifySignature('s3cret', body, `${good}00`)).toBe(false);
    expect(verifySignature('s3cret', body, undefined)).toBe(false);
  });
});

describe('renderCheck', () => {
  const release = {
    id: 'rel_2',
    digest: 'd'.repeat(64),
    failure: { step: 'health', code: 'SVC_HEALTH_CHECK_FAILED', message: '/healthz did not answer' },
  } as unknown as Release;
  const ctx = {
    projectSlug: 'shop',
    appUrl: 'https://shop.example.com',
    detailsUrl: 'https://svc.example.com/projects/p/releases/rel_2',
    actionRef: 'svc-dev/svc/action@v1',
    release,
  };
  const base: ReleaseCheckModel = {
    kind: 'release',
    state: 'in_progress',
    queuedAt: 0,
    releaseId: 'rel_2',
    priorReleaseId: 'rel_1',
    phases: [
      { name: 'verified', at: 1000 },
      { name: 'snapshot', at: 1500, detail: '4096 bytes' },
    ],
  };

  it('shows phases with timings while in progress', () => {
    const body = renderCheck(base, ctx);
    expect(body).toMatchObject({ status: 'in_progress', details_url: ctx.detailsUrl, output: { title: 'Releasing rel_2: snapshot taken' } });
    expect(body.output.summary).toContain('| ✅ Snapshot taken (4096 bytes) | 0.5 s |');
  });
  it('reports a failure with its reason and the restored state', () => {
    const body = renderCheck({ ...base, state: 'failure', finishedAt: 9000 }, ctx);
    expect(body).toMatchObject({ status: 'completed', conclusion: 'failure', output: { title: 'Failed at health: SVC_HEALTH_CHECK_FAILED' } });
    expect(body.output.summary).toContain('/healthz did not answer');
    expect(body.output.summary).toContain('`rel_1` is serving again; the database was restored from the pre-deploy snapshot');
  });
  it('reports success with the URL, and timeouts with the Action snippet', () => {
    expect(renderCheck({ ...base, state: 'success', finishedAt: 9000 }, ctx).output.title).toBe('Active at https://shop.example.com');
    const timedOut = renderCheck({ kind: 'release', state: 'timed_out', queuedAt: 0, phases: [], timeoutMinutes: 60, finishedAt: 1 }, ctx);
    expect(timedOut).toMatchObject({ conclusion: 'timed_out', output: { title: 'No build uploaded within 60 minutes' } });
    expect(timedOut.output.summary).toContain('uses: svc-dev/svc/action@v1');
  });
});

describe('observe (release observers can never break a release)', () => {
  const logger = createLogger({ level: 'silent' });
  it('swallows observer errors, and rethrows only an SvcError from admit', () => {
    expect(() =>
      observe(logger, () => {
        throw new Error('boom');
      }),
    ).not.toThrow();
    expect(() =>
      observe(logger, () => {
        throw new SvcError('SVC_GITHUB_COMMIT_SUPERSEDED');
      }),
    ).not.toThrow();
    expect(() =>
      observe(
        logger,
        () => {
          throw new SvcError('SVC_GITHUB_COMMIT_SUPERSEDED');
        },
        { rethrowSvcErrors: true },
      ),
    ).toThrow(SvcError);
    expect(() =>
      observe(
        logger,
        () => {
          throw new TypeError('bug in admit');
        },
        { rethrowSvcErrors: true },
      ),
    ).not.toThrow();
  });
});

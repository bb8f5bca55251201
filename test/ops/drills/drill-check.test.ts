// svc/restore-drill: each drill receipt of a linked project's release becomes one completed check
// run on the release's commit, through the GitHub queue, against the repo's fake GitHub (requests
// validated against GitHub's OpenAPI description).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { saveReleaseSource } from '../../../src/github/commit-store.js';
import type { StoredDrillReceipt } from '../../../src/ops/drills/drill-store.js';
import { REPO_ID, START, startGithubHarness, type GithubHarness } from '../../github/github-harness.js';

const SHA = '7'.repeat(40);
let h: GithubHarness;
beforeEach(async () => {
  h = await startGithubHarness();
  saveReleaseSource({ db: h.plane.db }, { releaseId: 'rel_drill', projectId: h.project.id, sha: SHA, repositoryId: REPO_ID });
});
afterEach(async () => {
  await h?.close();
});

const receipt = (over: Partial<StoredDrillReceipt>): StoredDrillReceipt => ({
  id: 'drl_1',
  projectId: h.project.id,
  releaseId: 'rel_drill',
  backupId: 'bak_1',
  startedAt: START,
  finishedAt: START + 2500,
  outcome: 'passed',
  code: null,
  error: null,
  checks: [{ name: 'health', path: '/healthz', expected: 200, status: 200, ok: true }],
  ...over,
});

describe('svc/restore-drill check run', () => {
  it('posts a passed drill as success and a failed drill as failure with the reason', async () => {
    const observer = h.plane.github.drillObserver;
    observer.onDrillReceipt(receipt({}));
    observer.onDrillReceipt(
      receipt({ id: 'drl_2', outcome: 'setup-failed', code: 'SVC_OPS_DRILL_SETUP', error: 'unsupported state or unable to authenticate data', checks: [] }),
    );
    await h.drain();
    const runs = h.fake.runs(SHA, 'svc/restore-drill');
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatchObject({ status: 'completed', conclusion: 'success', output: { title: 'Restore drill passed (1 checks)' } });
    expect(runs[0]!.output?.summary).toContain('| ✅ health | `/healthz` | 200 | 200 |');
    expect(runs[1]).toMatchObject({ status: 'completed', conclusion: 'failure', output: { title: 'Restore drill could not restore the backup' } });
    expect(runs[1]!.output?.summary).toContain('`SVC_OPS_DRILL_SETUP`');
    expect(h.fake.invalid).toEqual([]);
  });

  it('does not post for a release without a commit or an unlinked project', async () => {
    h.plane.github.drillObserver.onDrillReceipt(receipt({ releaseId: 'rel_unknown' }));
    h.plane.github.drillObserver.onDrillReceipt(receipt({ releaseId: null }));
    await h.app.inject({ method: 'DELETE', url: `/api/projects/${h.project.id}/github`, headers: h.owner.headers() });
    h.plane.github.drillObserver.onDrillReceipt(receipt({}));
    await h.drain();
    expect(h.fake.runs(SHA, 'svc/restore-drill')).toHaveLength(0);
  });
});

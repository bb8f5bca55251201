// svc/canary: one check per canary run of a linked release, updated stage by stage.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CanaryStageEvent } from '../../src/canary/index.js';
import { saveReleaseSource } from '../../src/github/commit-store.js';
import { REPO_ID, startGithubHarness, type GithubHarness } from './github-harness.js';

const SHA = '9'.repeat(40);
let h: GithubHarness;
beforeEach(async () => {
  h = await startGithubHarness();
  saveReleaseSource({ db: h.plane.db }, { releaseId: 'rel_canary', projectId: h.project.id, sha: SHA, repositoryId: REPO_ID });
});
afterEach(async () => {
  await h?.close();
});

function event(over: Partial<CanaryStageEvent>): CanaryStageEvent {
  return {
    runId: 'can_1',
    projectId: h.project.id,
    releaseId: 'rel_canary',
    state: 'running',
    stageIndex: 0,
    stageCount: 3,
    trafficPercent: 10,
    kind: 'stage-started',
    reason: null,
    code: null,
    metrics: { samples: 0, errorRate: 0, p95Ms: 0 },
    ...over,
  } as CanaryStageEvent;
}

describe('svc/canary check run', () => {
  it('follows the stages and ends as failure with the reason', async () => {
    const observe = h.plane.github.canaryObserver.onCanaryStage!;
    observe(event({}));
    await h.drain();
    expect(h.fake.runs(SHA, 'svc/canary')[0]).toMatchObject({ status: 'in_progress', output: { title: 'Stage 1/3: 10% of traffic' } });
    observe(event({ kind: 'stage-passed', metrics: { samples: 120, errorRate: 0.001, p95Ms: 42 } }));
    observe(event({ stageIndex: 1, trafficPercent: 50 }));
    observe(
      event({
        stageIndex: 1,
        trafficPercent: 50,
        kind: 'failed',
        state: 'failed',
        code: 'SVC_CANARY_ERROR_RATE',
        reason: 'error rate 7% > 1%',
        metrics: { samples: 300, errorRate: 0.07, p95Ms: 80 },
      }),
    );
    await h.drain();
    const runs = h.fake.runs(SHA, 'svc/canary');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'completed', conclusion: 'failure', output: { title: 'Canary failed at stage 2/3' } });
    expect(runs[0]!.output?.summary).toContain('| 1/3 | 10% | 120 | 0.10% | 42 ms | ✅ passed |');
    expect(runs[0]!.output?.summary).toContain('`SVC_CANARY_ERROR_RATE`: error rate 7% > 1%');
    expect(h.fake.invalid).toEqual([]);
  });

  it('ends as success when promoted; a release without a commit is not reported', async () => {
    const observe = h.plane.github.canaryObserver.onCanaryStage!;
    observe(event({ runId: 'can_2' }));
    observe(event({ runId: 'can_2', kind: 'promoted', state: 'promoted', stageIndex: 2, trafficPercent: 100 }));
    observe(event({ runId: 'can_3', releaseId: 'rel_unknown' }));
    await h.drain();
    expect(h.fake.runs(SHA, 'svc/canary')).toHaveLength(1);
    expect(h.fake.runs(SHA, 'svc/canary')[0]).toMatchObject({ conclusion: 'success', output: { title: 'Promoted after 3 stages' } });
  });
});

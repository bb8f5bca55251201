// The pure canary decisions of a runner node: when a canary starts, is kept or refused, and what an
// ordinary request does with a staged candidate (promote or abort).
import { describe, expect, it } from 'vitest';
import { decideStagedCanary, planCanaryStart, type CanaryStartFacts } from '../../../runner/provider/node-canary.js';

const facts = (over: Partial<CanaryStartFacts> = {}): CanaryStartFacts => ({
  releaseId: 'rel_2',
  pendingMigrations: 0,
  baselineReleaseId: 'rel_1',
  baselineRunning: true,
  staged: null,
  ...over,
});

describe('planCanaryStart', () => {
  it('starts a code-only candidate beside a running baseline of another release', () => {
    expect(planCanaryStart(facts())).toEqual({ kind: 'start', replaceStaged: false });
  });

  it('refuses pending migrations, a missing or down baseline, and a canary of the running release', () => {
    expect(planCanaryStart(facts({ pendingMigrations: 1 }))).toMatchObject({ kind: 'refuse', code: 'SVC_CANARY_PENDING_MIGRATIONS' });
    expect(planCanaryStart(facts({ baselineReleaseId: null, baselineRunning: false }))).toMatchObject({ kind: 'refuse', code: 'SVC_CANARY_NO_BASELINE' });
    expect(planCanaryStart(facts({ baselineRunning: false }))).toMatchObject({ kind: 'refuse', code: 'SVC_CANARY_NO_BASELINE' });
    expect(planCanaryStart(facts({ releaseId: 'rel_1' }))).toMatchObject({ kind: 'refuse', code: 'SVC_CANARY_NO_BASELINE' });
  });

  it('keeps a candidate of the same release that is up (a retry), and replaces any other staged one', () => {
    expect(planCanaryStart(facts({ staged: { releaseId: 'rel_2', up: true } }))).toEqual({ kind: 'keep' });
    // Kept even when the baseline meanwhile went down: nothing is started or stopped by a retry.
    expect(planCanaryStart(facts({ staged: { releaseId: 'rel_2', up: true }, baselineRunning: false }))).toEqual({ kind: 'keep' });
    expect(planCanaryStart(facts({ staged: { releaseId: 'rel_2', up: false } }))).toEqual({ kind: 'start', replaceStaged: true });
    expect(planCanaryStart(facts({ staged: { releaseId: 'rel_3', up: true } }))).toEqual({ kind: 'start', replaceStaged: true });
  });

  it('a refusal never replaces a staged candidate', () => {
    expect(planCanaryStart(facts({ staged: { releaseId: 'rel_3', up: true }, pendingMigrations: 2 }))).toMatchObject({
      kind: 'refuse',
      code: 'SVC_CANARY_PENDING_MIGRATIONS',
    });
  });
});

describe('decideStagedCanary', () => {
  it('nothing staged: nothing to do', () => {
    expect(decideStagedCanary(null, { state: 'running', releaseId: 'rel_2' })).toBe('none');
    expect(decideStagedCanary(null, { state: 'stopped', releaseId: null })).toBe('none');
  });

  it('the candidate release while its app is up promotes; anything else aborts', () => {
    const staged = { releaseId: 'rel_2', up: true };
    expect(decideStagedCanary(staged, { state: 'running', releaseId: 'rel_2' })).toBe('promote');
    expect(decideStagedCanary(staged, { state: 'running', releaseId: 'rel_1' })).toBe('abort');
    expect(decideStagedCanary(staged, { state: 'running', releaseId: 'rel_3' })).toBe('abort');
    expect(decideStagedCanary(staged, { state: 'stopped', releaseId: null })).toBe('abort');
    // A candidate whose app went down is not promoted as it is: it is aborted and the release deploys as usual.
    expect(decideStagedCanary({ releaseId: 'rel_2', up: false }, { state: 'running', releaseId: 'rel_2' })).toBe('abort');
  });
});

import { describe, expect, it } from 'vitest';
import { defaultCanaryPolicy, evaluateStage, policyFromConfig, stageMetrics, type CanaryPolicy, type CanarySample } from '../../src/canary/stage-policy.js';
import { canaryPolicySchema, parseDeployConfig } from '../../src/artifacts/deploy-config.js';

const policy: CanaryPolicy = {
  stages: [
    { trafficPercent: 10, durationMs: 1_000, minimumSamples: 10 },
    { trafficPercent: 50, durationMs: 2_000, minimumSamples: 20 },
  ],
  maximumErrorRate: 0.1,
  maximumP95Ms: 100,
};

/** `n` samples, the first `errors` of them errors, latencies `latency` (or a function of the index). */
function samples(n: number, errors = 0, latency: number | ((i: number) => number) = 10): CanarySample[] {
  return Array.from({ length: n }, (_, i) => ({ latencyMs: typeof latency === 'number' ? latency : latency(i), error: i < errors }));
}

describe('stageMetrics', () => {
  it('is zero without samples', () => {
    expect(stageMetrics([])).toEqual({ samples: 0, errorRate: 0, p95Ms: 0 });
  });
  it('uses the nearest-rank p95 and the error fraction', () => {
    const m = stageMetrics(samples(100, 7, (i) => i + 1));
    expect(m).toEqual({ samples: 100, errorRate: 0.07, p95Ms: 95 });
    expect(stageMetrics(samples(1, 1, 42))).toEqual({ samples: 1, errorRate: 1, p95Ms: 42 });
    expect(stageMetrics(samples(20, 0, (i) => 20 - i)).p95Ms).toBe(19);
  });
});

// One row per case: [name, stage, samples, elapsed ms, expected verdict, expected reason].
const table: [string, number, CanarySample[], number, string, string][] = [
  ['before the end with no samples', 0, [], 0, 'continue', 'collecting'],
  ['before the end, below the minimum, all errors', 0, samples(9, 9), 500, 'continue', 'collecting'],
  ['before the end, below the minimum, slow', 0, samples(9, 0, 500), 999, 'continue', 'collecting'],
  ['before the end, minimum reached, within bounds', 0, samples(10), 999, 'continue', 'collecting'],
  ['before the end, minimum reached, error rate above bound', 0, samples(10, 2), 500, 'fail', 'error-rate-exceeded'],
  ['before the end, minimum reached, p95 above bound', 0, samples(10, 0, 101), 500, 'fail', 'p95-exceeded'],
  ['at the end with no samples (missing traffic)', 0, [], 1_000, 'fail', 'insufficient-samples'],
  ['at the end, one sample short', 0, samples(9), 1_000, 'fail', 'insufficient-samples'],
  ['long after the end, one sample short', 0, samples(9), 60_000, 'fail', 'insufficient-samples'],
  ['at the end, minimum reached, within bounds', 0, samples(10), 1_000, 'advance', 'criteria-met'],
  ['at the end, error rate exactly at the bound', 0, samples(10, 1), 1_000, 'advance', 'criteria-met'],
  ['at the end, error rate just above the bound', 0, samples(10, 2), 1_000, 'fail', 'error-rate-exceeded'],
  ['at the end, p95 exactly at the bound', 0, samples(10, 0, 100), 1_000, 'advance', 'criteria-met'],
  ['at the end, p95 above the bound', 0, samples(10, 0, 100.5), 1_000, 'fail', 'p95-exceeded'],
  ['at the end, both bounds exceeded: error rate reported first', 0, samples(10, 5, 500), 1_000, 'fail', 'error-rate-exceeded'],
  ['at the end, slow tail below 5% ignored by p95', 0, samples(100, 0, (i) => (i >= 96 ? 10_000 : 5)), 1_000, 'advance', 'criteria-met'],
  ['at the end, slow tail above 5% caught by p95', 0, samples(100, 0, (i) => (i >= 94 ? 10_000 : 5)), 1_000, 'fail', 'p95-exceeded'],
  ['last stage before the end', 1, samples(50), 1_999, 'continue', 'collecting'],
  ['last stage at the end, within bounds: promote', 1, samples(20), 2_000, 'promote', 'criteria-met'],
  ['last stage at the end, short of samples', 1, samples(19), 2_000, 'fail', 'insufficient-samples'],
  ['last stage at the end, errors', 1, samples(20, 3), 2_000, 'fail', 'error-rate-exceeded'],
];

describe('evaluateStage', () => {
  it.each(table)('%s', (_name, stage, list, elapsed, verdict, reason) => {
    const decision = evaluateStage(policy, stage, list, 1_000_000, 1_000_000 + elapsed);
    expect(decision.verdict).toBe(verdict);
    expect(decision.reason).toBe(reason);
    expect(decision.metrics).toEqual(stageMetrics(list));
  });

  it('is pure: the same inputs give the same decision and the samples are not changed', () => {
    const list = samples(30, 1, (i) => 30 - i);
    const copy = list.map((s) => ({ ...s }));
    const a = evaluateStage(policy, 0, list, 0, 5_000);
    const b = evaluateStage(policy, 0, list, 0, 5_000);
    expect(a).toEqual(b);
    expect(list).toEqual(copy);
  });

  it('rejects a stage index outside the policy', () => {
    expect(() => evaluateStage(policy, 2, [], 0, 0)).toThrow(RangeError);
    expect(() => evaluateStage(policy, -1, [], 0, 0)).toThrow(RangeError);
  });

  it('a zero error bound fails on a single error once the minimum is reached', () => {
    const strict = { ...policy, maximumErrorRate: 0 };
    expect(evaluateStage(strict, 0, samples(10, 1), 0, 100).verdict).toBe('fail');
    expect(evaluateStage(strict, 0, samples(10, 0), 0, 1_000).verdict).toBe('advance');
  });
});

describe('canary configuration', () => {
  const base = { version: 1, entry: 'dist/server.mjs' };
  it('accepts a valid policy and the default policy is valid', () => {
    const parsed = parseDeployConfig({ ...base, canary: policy }).canary!;
    expect(parsed.maximumErrorRate).toBe('0.1'); // canonical JSON (the artifact header) holds integers only
    expect(policyFromConfig(parsed)).toEqual(policy);
    // The normalized form parses again to itself (releases re-parse their stored config).
    expect(parseDeployConfig({ ...base, canary: parsed }).canary).toEqual(parsed);
    expect(policyFromConfig(canaryPolicySchema.parse(defaultCanaryPolicy))).toEqual(defaultCanaryPolicy);
    expect(parseDeployConfig({ ...base, canary: { ...policy, maximumErrorRate: 0.0125 } }).canary!.maximumErrorRate).toBe('0.0125');
    expect(parseDeployConfig(base).canary).toBeUndefined();
  });
  it.each([
    ['no stages', { ...policy, stages: [] }],
    ['percent 0', { ...policy, stages: [{ trafficPercent: 0, durationMs: 1000, minimumSamples: 1 }] }],
    ['percent above 100', { ...policy, stages: [{ trafficPercent: 101, durationMs: 1000, minimumSamples: 1 }] }],
    ['fractional percent', { ...policy, stages: [{ trafficPercent: 2.5, durationMs: 1000, minimumSamples: 1 }] }],
    ['duration too short', { ...policy, stages: [{ trafficPercent: 5, durationMs: 10, minimumSamples: 1 }] }],
    ['zero minimum samples', { ...policy, stages: [{ trafficPercent: 5, durationMs: 1000, minimumSamples: 0 }] }],
    ['more samples than retained', { ...policy, stages: [{ trafficPercent: 5, durationMs: 1000, minimumSamples: 10_001 }] }],
    ['error rate above 1', { ...policy, maximumErrorRate: 1.5 }],
    ['negative error rate', { ...policy, maximumErrorRate: -0.1 }],
    ['zero p95', { ...policy, maximumP95Ms: 0 }],
    ['error rate as an arbitrary string', { ...policy, maximumErrorRate: 'low' }],
    ['error rate string above 1', { ...policy, maximumErrorRate: '1.5' }],
    ['unknown field', { ...policy, extra: true }],
    ['unknown stage field', { ...policy, stages: [{ trafficPercent: 5, durationMs: 1000, minimumSamples: 1, sticky: true }] }],
    ['missing bound', { stages: policy.stages, maximumErrorRate: 0.1 }],
  ])('rejects %s', (_name, canary) => {
    expect(() => parseDeployConfig({ ...base, canary })).toThrow(expect.objectContaining({ code: expect.stringMatching(/^SVC_CONFIG_/) }));
  });
});

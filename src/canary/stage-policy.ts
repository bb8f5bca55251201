// The stage decision of a canary rollout (docs/canary.md): a pure function of the
// policy, the stage's samples and the clock. The controller around it only gathers samples and acts.
import type { DeployConfig } from '../artifacts/deploy-config.js';
import { DEFAULT_CANARY_POLICY } from './contract.js';

/** A validated canary policy (svc.deploy.json `canary`, or the default of `svc deploy --canary`). */
export interface CanaryPolicy {
  stages: { trafficPercent: number; durationMs: number; minimumSamples: number }[];
  /** Fraction 0–1. */
  maximumErrorRate: number;
  maximumP95Ms: number;
}

/** The policy of a normalized svc.deploy.json `canary` object (its error rate is a decimal string there). Pure. */
export function policyFromConfig(canary: NonNullable<DeployConfig['canary']>): CanaryPolicy {
  return { stages: canary.stages.map((s) => ({ ...s })), maximumErrorRate: Number(canary.maximumErrorRate), maximumP95Ms: canary.maximumP95Ms };
}

/** One completed response routed to the candidate. */
export interface CanarySample {
  readonly latencyMs: number;
  /** A 5xx, a response that never started, or a broken body stream. */
  readonly error: boolean;
}

export type StageVerdict = 'continue' | 'advance' | 'promote' | 'fail';

/** Why a decision was taken (stable strings: stored in reports and shown by the CLI and console). */
export type StageReason = 'collecting' | 'criteria-met' | 'insufficient-samples' | 'error-rate-exceeded' | 'p95-exceeded';

export interface StageMetrics {
  samples: number;
  /** Errors / samples; 0 without samples. */
  errorRate: number;
  /** Nearest-rank 95th percentile latency; 0 without samples. */
  p95Ms: number;
}

export interface StageDecision {
  verdict: StageVerdict;
  reason: StageReason;
  metrics: StageMetrics;
}

/** Used by `svc deploy --canary` when svc.deploy.json has no `canary` object. */
export const defaultCanaryPolicy: CanaryPolicy = { ...DEFAULT_CANARY_POLICY, stages: DEFAULT_CANARY_POLICY.stages.map((s) => ({ ...s })) };

/** Count, error rate and nearest-rank p95 of a set of samples. Pure. */
export function stageMetrics(samples: readonly CanarySample[]): StageMetrics {
  const n = samples.length;
  if (n === 0) return { samples: 0, errorRate: 0, p95Ms: 0 };
  let errors = 0;
  const latencies = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const s = samples[i]!;
    if (s.error) errors++;
    latencies[i] = s.latencyMs;
  }
  latencies.sort();
  const rank = Math.ceil(0.95 * n) - 1;
  return { samples: n, errorRate: errors / n, p95Ms: latencies[rank]! };
}

/**
 * Decide a stage. Before its duration the stage continues, unless it already holds the minimum
 * sample count and a bound is exceeded (enough evidence: fail early and protect users). At its end
 * it needs the minimum samples (missing traffic fails) and both bounds; then it advances, or the
 * last stage promotes. A bound is met when the value is at most the maximum.
 */
export function evaluateStage(policy: CanaryPolicy, stageIndex: number, samples: readonly CanarySample[], stageStartedAt: number, now: number): StageDecision {
  const stage = policy.stages[stageIndex];
  if (!stage) throw new RangeError(`stage ${stageIndex} does not exist (the policy has ${policy.stages.length})`);
  const metrics = stageMetrics(samples);
  const enough = metrics.samples >= stage.minimumSamples;
  const bound: StageReason | null =
    metrics.errorRate > policy.maximumErrorRate ? 'error-rate-exceeded' : metrics.p95Ms > policy.maximumP95Ms ? 'p95-exceeded' : null;
  const ended = now - stageStartedAt >= stage.durationMs;
  if (!ended) {
    if (enough && bound) return { verdict: 'fail', reason: bound, metrics };
    return { verdict: 'continue', reason: 'collecting', metrics };
  }
  if (!enough) return { verdict: 'fail', reason: 'insufficient-samples', metrics };
  if (bound) return { verdict: 'fail', reason: bound, metrics };
  const last = stageIndex === policy.stages.length - 1;
  return { verdict: last ? 'promote' : 'advance', reason: 'criteria-met', metrics };
}

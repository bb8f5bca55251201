// What the release transaction asks of canary rollouts (src/canary implements it). Types only,
// below release-deps.ts and the transaction code that drives a canary run.
import type { DeployConfig } from '../artifacts/index.js';
import type { RunningApp } from '../../runner/release-driver.js';

/** One canary rollout as the release transaction drives it (src/canary implements it). */
export interface ReleaseCanaryRun {
  /** After the health gate: run every stage; resolves when the candidate may be promoted, throws an SvcError once it failed (candidate routing already removed). */
  run(candidate: CanaryCandidateApp, health: { path: string }): Promise<void>;
  /** The transaction ended: activated after promotion, or failed or rejected with this failure. Idempotent. */
  settle(result: { ok: true } | { ok: false; code: string; message: string }): void;
}

/** A canary's candidate: a started local app, or the one a runner node reports beside the baseline. */
export type CanaryCandidateApp = Pick<RunningApp, 'host' | 'port'> & { onExit(listener: () => void): () => void };

/** What the release transaction asks of canary rollouts (declared where consumed). */
export interface ReleaseCanaryHooks {
  /**
   * A deploy with a running baseline: its canary run when one was requested or configured, else null
   * (direct activation). Throws an SvcError to refuse the deploy (fails closed).
   */
  begin(input: {
    projectId: string;
    releaseId: string;
    baselineReleaseId: string;
    requested: boolean;
    config: DeployConfig;
    authority: () => Promise<boolean>;
  }): ReleaseCanaryRun | null;
}

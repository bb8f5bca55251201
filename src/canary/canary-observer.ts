// Observers of canary runs (GitHub posts the `svc/canary` check run from these events). Like release
// observers they must never break a rollout: calls go through `observeCanary`, which catches and logs.
import type { Logger } from '../core/logger.js';
import type { CanaryRunState } from './contract.js';
import type { StageMetrics } from './stage-policy.js';

/** One canary event: a stage began or ended, or the run ended. */
export interface CanaryStageEvent {
  runId: string;
  projectId: string;
  releaseId: string;
  /** Run state after the event (`running` while stages go on). */
  state: CanaryRunState;
  stageIndex: number;
  stageCount: number;
  trafficPercent: number;
  /** `stage-started`, `stage-passed`, or the run's end. */
  kind: 'stage-started' | 'stage-passed' | 'promoted' | 'failed' | 'rejected';
  reason: string | null;
  code: string | null;
  metrics: StageMetrics;
}

export interface CanaryObserver {
  onCanaryStage?(event: CanaryStageEvent): void;
}

/** Deliver an event to an observer; errors are logged, never thrown. */
export function observeCanary(logger: Logger, observer: CanaryObserver | undefined, event: CanaryStageEvent): void {
  if (!observer?.onCanaryStage) return;
  try {
    observer.onCanaryStage(event);
  } catch (error) {
    logger.error({ err: error }, 'a canary observer failed (ignored)');
  }
}

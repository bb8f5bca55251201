// The small effectful loop around evaluateStage: route the stage's percentage to the candidate, collect
// samples from the ingress, tick on a timer, watch the candidate's liveness, health and the deploy's
// authority, persist each stage, and end with promote (the caller activates) or a safe failure
// (candidate routing removed and drained before the caller stops the candidate).
import type { Clock } from '../core/clock.js';
import type { ErrorCode } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { observeCanary, type CanaryObserver, type CanaryStageEvent } from './canary-observer.js';
import type { CanaryStore } from './canary-store.js';
import { SampleWindow, type CompletedRequest } from './sample-window.js';
import { evaluateStage, stageMetrics, type CanaryPolicy, type StageMetrics } from './stage-policy.js';

/** Where the candidate listens. */
export interface CanaryCandidate {
  readonly host: string;
  readonly port: number;
  readonly releaseId: string;
}

/** What the controller needs from the ingress. */
export interface CanaryRouting {
  /** Send `percent` of each 100-request cycle to the candidate; returns the first route generation of this stage. */
  split(projectId: string, candidate: CanaryCandidate, percent: number): number;
  /** Remove candidate routing and wait (bounded) for its in-flight requests. */
  clear(projectId: string, drainMs: number): Promise<void>;
}

export interface CanaryControllerDeps {
  store: CanaryStore;
  clock: Clock;
  logger: Logger;
  routing: CanaryRouting;
  /** Subscribe to finished ingress requests; returns the unsubscribe function. */
  subscribe(observer: (record: CompletedRequest & { readonly projectId: string }) => void): () => void;
  /** Call `fn` every `ms` until the returned function is called (default setInterval). */
  every?: (ms: number, fn: () => void) => () => void;
  observer?: CanaryObserver;
  /** Decision interval (default 100 ms). */
  tickMs?: number;
  /** Health and authority check interval (default 1000 ms); 3 failed health checks in a row fail the canary. */
  checkEveryMs?: number;
  /** Bound on waiting for candidate requests after its routing is removed (default 5000 ms). */
  drainMs?: number;
}

export interface CanaryRunInput {
  runId: string;
  projectId: string;
  releaseId: string;
  policy: CanaryPolicy;
  candidate: CanaryCandidate & { onExit(listener: () => void): () => void };
  /** One probe of the candidate's health route (true = 2xx). */
  health(): Promise<boolean>;
  /** Whether this deploy still holds the project lock and its deployment authority. */
  authority(): Promise<boolean>;
}

export type CanaryOutcome = { promoted: true } | { promoted: false; code: ErrorCode; reason: string };

const HEALTH_FAILURES = 3;

const defaultEvery = (ms: number, fn: () => void): (() => void) => {
  const timer = setInterval(fn, ms);
  return () => clearInterval(timer);
};

/** Run every stage of a canary; never rejects (failures resolve `{ promoted: false }` after routing is removed). */
export function runCanary(deps: CanaryControllerDeps, input: CanaryRunInput): Promise<CanaryOutcome> {
  const { store, clock, policy } = { ...deps, policy: input.policy };
  const window = new SampleWindow();
  const every = deps.every ?? defaultEvery;
  let stage = 0;
  let stageStartedAt = 0;
  let settled = false;
  let healthFailures = 0;
  let checking = false;
  let lastCheck = clock.now();
  let stopTimer: () => void = () => undefined;
  let unsubscribe: () => void = () => undefined;
  let offExit: () => void = () => undefined;
  let resolveOutcome!: (outcome: CanaryOutcome) => void;
  const outcome = new Promise<CanaryOutcome>((resolve) => (resolveOutcome = resolve));

  const emit = (kind: CanaryStageEvent['kind'], metrics: StageMetrics, reason: string | null, code: string | null): void =>
    observeCanary(deps.logger, deps.observer, {
      runId: input.runId,
      projectId: input.projectId,
      releaseId: input.releaseId,
      state: kind === 'promoted' ? 'promoted' : kind === 'failed' ? 'failed' : 'running',
      stageIndex: stage,
      stageCount: policy.stages.length,
      trafficPercent: policy.stages[stage]!.trafficPercent,
      kind,
      reason,
      code,
      metrics,
    });

  const beginStage = (index: number): void => {
    stage = index;
    stageStartedAt = clock.now();
    const percent = policy.stages[index]!.trafficPercent;
    store.beginStage(input.runId, index, percent);
    // Requests dispatched before the new split belong to the earlier stage and are excluded.
    window.begin(input.releaseId, deps.routing.split(input.projectId, input.candidate, percent));
    emit('stage-started', stageMetrics([]), null, null);
  };

  const finish = async (result: CanaryOutcome, metrics: StageMetrics): Promise<void> => {
    if (settled) return;
    settled = true;
    stopTimer();
    unsubscribe();
    offExit();
    try {
      await deps.routing.clear(input.projectId, deps.drainMs ?? 5_000);
    } catch (error) {
      deps.logger.error({ err: error, projectId: input.projectId }, 'could not remove canary routing');
    }
    if (result.promoted) {
      store.updateStage(input.runId, stage, 'passed', 'criteria-met', metrics);
      emit('stage-passed', metrics, 'criteria-met', null); // `promoted` follows once the activation commits
    } else {
      store.updateStage(input.runId, stage, 'failed', result.reason, metrics);
      store.finishRun(input.runId, 'failed', { code: result.code, message: `stage ${stage + 1}: ${result.reason}` });
      emit('failed', metrics, result.reason, result.code);
    }
    resolveOutcome(result);
  };
  const fail = (code: ErrorCode, reason: string): void => void finish({ promoted: false, code, reason }, stageMetrics(window.samples()));

  const check = async (): Promise<void> => {
    checking = true;
    try {
      const [healthy, authorized] = await Promise.all([input.health().catch(() => false), input.authority().catch(() => false)]);
      if (settled) return;
      if (!authorized) return fail('SVC_CANARY_AUTHORITY_LOST', 'authority-lost');
      healthFailures = healthy ? 0 : healthFailures + 1;
      if (healthFailures >= HEALTH_FAILURES) fail('SVC_CANARY_CANDIDATE_LOST', 'health-lost');
    } finally {
      checking = false;
    }
  };

  const tick = (): void => {
    if (settled) return;
    const now = clock.now();
    if (!checking && now - lastCheck >= (deps.checkEveryMs ?? 1_000)) {
      lastCheck = now;
      void check();
    }
    const decision = evaluateStage(policy, stage, window.samples(), stageStartedAt, now);
    if (decision.verdict === 'continue') {
      store.updateStage(input.runId, stage, 'running', decision.reason, decision.metrics);
      return;
    }
    if (decision.verdict === 'fail') return fail('SVC_CANARY_CRITERIA_FAILED', decision.reason);
    if (decision.verdict === 'promote') return void finish({ promoted: true }, decision.metrics);
    store.updateStage(input.runId, stage, 'passed', decision.reason, decision.metrics);
    emit('stage-passed', decision.metrics, decision.reason, null);
    beginStage(stage + 1);
  };

  unsubscribe = deps.subscribe((record) => {
    if (!settled && record.projectId === input.projectId) window.offer(record);
  });
  try {
    beginStage(0);
    stopTimer = every(deps.tickMs ?? 100, tick);
  } catch (error) {
    deps.logger.error({ err: error, projectId: input.projectId }, 'could not start the canary');
    fail('SVC_CANARY_CRITERIA_FAILED', 'start-failed');
  }
  // Registered last: an app that already exited calls the listener at once.
  const off = input.candidate.onExit(() => fail('SVC_CANARY_CANDIDATE_LOST', 'candidate-exited'));
  if (settled) off();
  else offExit = off;
  return outcome;
}

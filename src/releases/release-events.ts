// Live progress of release transactions in this process: the steps each running release entered, with
// the time the transaction recorded them, for followers of GET …/releases/:releaseId/events. Fed by a
// release observer, so the transaction itself knows nothing about followers. Only running releases are
// kept: a follower of a finished one gets its final row instead, and for a rollback that just ended
// (a few minutes) its steps and how it ended, since the target's row does not say why it stayed
// inactive and a follower may connect only after a quick rollback ended.
import type { ReleaseStep, ReleaseStepEvent, RollbackOutcome } from './contract.js';
import type { ReleaseObserver } from './release-observer.js';

/** A rollback that ended: the steps it entered and how it ended. */
export interface EndedRollback {
  steps: ReleaseStepEvent[];
  outcome: RollbackOutcome;
}

type Listener = (event: ReleaseStepEvent | 'end') => void;

interface Running {
  steps: ReleaseStepEvent[];
  listeners: Set<Listener>;
}

// A transaction enters about ten steps; the bounds only guard against a runaway loop or a release
// whose end was never observed.
const MAX_STEPS = 200;
const MAX_RUNNING = 1000;
// A CLI follows a rollback right after the 202: its outcome is kept only long enough for that.
const OUTCOME_TTL_MS = 5 * 60_000;
const MAX_OUTCOMES = 200;

/** Steps of running releases and their followers. */
export class ReleaseEventHub {
  private readonly running = new Map<string, Running>();
  private readonly outcomes = new Map<string, EndedRollback & { at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A step was entered or finished. */
  record(releaseId: string, step: ReleaseStep, details: Record<string, unknown> = {}): void {
    const run = this.entry(releaseId);
    const event: ReleaseStepEvent = { type: 'step', step, at: new Date(this.now()).toISOString() };
    if (Object.keys(details).length > 0) event.details = details;
    if (run.steps.length < MAX_STEPS) run.steps.push(event);
    for (const listener of run.listeners) listener(event);
  }

  // A rollback is followed from its start, before its first step.
  private entry(releaseId: string): Running {
    let run = this.running.get(releaseId);
    if (!run) {
      if (this.running.size >= MAX_RUNNING) this.end(this.running.keys().next().value as string);
      this.running.set(releaseId, (run = { steps: [], listeners: new Set() }));
    }
    return run;
  }

  /** The transaction ended (a rollback with its outcome): followers are told, and the release is forgotten. */
  end(releaseId: string, rollback?: RollbackOutcome): void {
    const run = this.running.get(releaseId);
    if (rollback) {
      this.outcomes.delete(releaseId);
      if (this.outcomes.size >= MAX_OUTCOMES) this.outcomes.delete(this.outcomes.keys().next().value as string);
      this.outcomes.set(releaseId, { steps: run?.steps ?? [], outcome: rollback, at: this.now() });
    }
    if (!run) return;
    this.running.delete(releaseId);
    for (const listener of run.listeners) listener('end');
  }

  /** The last rollback to the release, if it ended within the last few minutes. */
  endedRollback(releaseId: string): EndedRollback | null {
    const kept = this.outcomes.get(releaseId);
    return kept && this.now() - kept.at <= OUTCOME_TTL_MS ? { steps: kept.steps, outcome: kept.outcome } : null;
  }

  /**
   * The steps recorded so far and a subscription to the next ones (`'end'` when the transaction ends).
   * `backlog` is null when the release is not running in this process.
   */
  follow(releaseId: string, listener: Listener): { backlog: ReleaseStepEvent[] | null; stop: () => void } {
    const run = this.running.get(releaseId);
    if (!run) return { backlog: null, stop: () => undefined };
    run.listeners.add(listener);
    return { backlog: [...run.steps], stop: () => void run.listeners.delete(listener) };
  }

  /** The observer that feeds this hub from the release transaction. */
  observer(): ReleaseObserver {
    return {
      onPhase: (release, step, details) => this.record(release.id, step, details),
      onOutcome: (release) => this.end(release.id),
      // A rollback enters steps of its target release too; its end forgets them and keeps its outcome.
      onRollback: (event) => {
        if (event.phase === 'start') {
          this.outcomes.delete(event.releaseId);
          this.entry(event.releaseId);
        } else
          this.end(
            event.releaseId,
            event.phase === 'complete' ? { outcome: 'complete' } : { outcome: 'failed', ...(event.error ? { error: event.error } : {}) },
          );
      },
    };
  }
}

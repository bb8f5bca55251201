// Live progress of release transactions in this process: the steps each running release entered, with
// the time the transaction recorded them, for followers of GET …/releases/:releaseId/events. Fed by a
// release observer, so the transaction itself knows nothing about followers. Only running releases are
// kept: a follower of a finished one gets its final row instead.
import type { ReleaseStep, ReleaseStepEvent } from './contract.js';
import type { ReleaseObserver } from './release-observer.js';

type Listener = (event: ReleaseStepEvent | 'end') => void;

interface Running {
  steps: ReleaseStepEvent[];
  listeners: Set<Listener>;
}

// A transaction enters about ten steps; the bounds only guard against a runaway loop or a release
// whose end was never observed.
const MAX_STEPS = 200;
const MAX_RUNNING = 1000;

/** Steps of running releases and their followers. */
export class ReleaseEventHub {
  private readonly running = new Map<string, Running>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A step was entered or finished. */
  record(releaseId: string, step: ReleaseStep, details: Record<string, unknown> = {}): void {
    let run = this.running.get(releaseId);
    if (!run) {
      if (this.running.size >= MAX_RUNNING) this.end(this.running.keys().next().value as string);
      this.running.set(releaseId, (run = { steps: [], listeners: new Set() }));
    }
    const event: ReleaseStepEvent = { type: 'step', step, at: new Date(this.now()).toISOString() };
    if (Object.keys(details).length > 0) event.details = details;
    if (run.steps.length < MAX_STEPS) run.steps.push(event);
    for (const listener of run.listeners) listener(event);
  }

  /** The transaction ended: followers are told, and the release is forgotten. */
  end(releaseId: string): void {
    const run = this.running.get(releaseId);
    if (!run) return;
    this.running.delete(releaseId);
    for (const listener of run.listeners) listener('end');
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
      // A rollback enters steps of its target release too; its end forgets them.
      onRollback: (event) => {
        if (event.phase !== 'start') this.end(event.releaseId);
      },
    };
  }
}

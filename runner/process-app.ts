// One app process (our child, or a re-adopted orphan): exit tracking, group stop, log draining.
import type { Clock } from '../src/core/clock.js';
import { checkProcess } from '../src/core/process-identity.js';
import type { AppExit, RunningApp, RunningAppRecord, StopOptions } from './app-runner.js';
import type { LogStore } from './log-store.js';
import type { OutputTail } from './output-tail.js';
import { TrackedApp, type ExitSource } from './tracked-app.js';

export interface ProcessAppDeps {
  clock: Clock;
  logs: LogStore;
  graceMs: number;
  tails: OutputTail[];
  /** Called once after the process exited and its output was drained. */
  cleanup: () => void;
}

export type { ExitSource } from './tracked-app.js';

/** A running `node <entry>` process group implementing RunningApp. */
export class ProcessApp extends TrackedApp implements RunningApp {
  readonly pid: number;

  constructor(
    rec: RunningAppRecord,
    private readonly deps: ProcessAppDeps,
    source: ExitSource,
  ) {
    super(rec, deps, source, 500, 'exited');
    this.pid = rec.pid!;
    this.observe(source);
  }

  /** Observe a process that is not our child: poll pid + start time. */
  protected watchByPolling(): void {
    if (!this.alive()) return this.markExited(null, null);
    this.poller = setInterval(() => {
      if (!this.alive()) this.markExited(null, null);
    }, this.pollMs);
    this.poller.unref();
  }

  /** SIGTERM to the process group, SIGKILL to the group after the grace period. */
  async stop(options: StopOptions = {}): Promise<AppExit> {
    if (this.exit) return this.exit;
    if (this.detached) {
      // Stopping after detach (e.g. in shutdown paths): watch again, without the capture.
      this.detached = false;
      this.watchByPolling();
      if (this.exit) return this.exit;
    }
    this.signalStop('SIGTERM');
    const graceMs = options.graceMs ?? this.deps.graceMs;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      this.wait().then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut && !this.exit) {
      this.note(`did not stop within ${graceMs} ms; sending SIGKILL`);
      this.signalStop('SIGKILL');
    }
    return this.wait();
  }

  protected alive(): boolean {
    return checkProcess(this.pid, this.rec.processStartTime ?? null) === 'alive';
  }

  /** Deliver a stop signal to the app: here the whole process group. */
  protected signalStop(signal: 'SIGTERM' | 'SIGKILL'): void {
    // Never signal a recycled pid: an adopted process must still be the one we recorded.
    if (!this.detachChild && !this.alive()) {
      this.markExited(null, null);
      return;
    }
    try {
      process.kill(-this.pid, signal);
    } catch {
      // The group is already gone.
    }
  }

  /** Leftover members of the group (children the app spawned) must not outlive it. */
  protected onExitObserved(): void {
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // No members left.
    }
  }
}

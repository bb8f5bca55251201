// What every RunningApp shares, whatever starts it: identity from its record, exit observed
// once (child exit event or polling), exit listeners, detach for re-adoption, platform log lines.
import type { ChildProcess } from 'node:child_process';
import type { Clock } from '../src/core/clock.js';
import type { AppExit, RunningAppRecord } from './app-runner.js';
import { AppExitLatch } from './app-exit-latch.js';
import type { LogStore } from './log-store.js';
import type { OutputTail } from './output-tail.js';

/** The effects the shared part needs. */
export interface TrackedAppDeps {
  clock: Clock;
  logs: LogStore;
  tails: OutputTail[];
  /** Called once after the app exited and its output was drained. */
  cleanup: () => void;
}

/** How exits are observed: our child's exit event, or polling for an adopted app. */
export type ExitSource = { child: ChildProcess } | { pollMs: number };

/** Base of ProcessApp and ContainerApp; subclasses say how liveness is polled and what an exit also does. */
export abstract class TrackedApp {
  readonly id: string;
  readonly projectId: string;
  readonly releaseId: string;
  readonly port: number;
  readonly host: string;
  protected detached = false;
  protected poller: NodeJS.Timeout | null = null;
  protected detachChild: (() => void) | null = null;
  protected readonly pollMs: number;
  private readonly latch = new AppExitLatch();
  private exitSeen = false;

  protected constructor(
    protected readonly rec: RunningAppRecord,
    private readonly shared: TrackedAppDeps,
    source: ExitSource,
    defaultPollMs: number,
    /** How the exit reads in the project log, e.g. "exited" or "container exited". */
    private readonly exitLabel: string,
  ) {
    this.id = rec.id;
    this.projectId = rec.projectId;
    this.releaseId = rec.releaseId;
    this.port = rec.port;
    this.host = rec.host;
    this.pollMs = 'pollMs' in source ? source.pollMs : defaultPollMs;
  }

  /** Start capturing output and watching for the exit; subclasses call it last in their constructor. */
  protected observe(source: ExitSource): void {
    for (const tail of this.shared.tails) tail.start();
    if ('child' in source) {
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void => this.markExited(code, signal);
      source.child.once('exit', onExit);
      this.detachChild = () => source.child.off('exit', onExit);
    } else {
      this.watchByPolling();
    }
  }

  /** Observe an app that is not our child. */
  protected abstract watchByPolling(): void;

  /** Extra work the moment an exit is seen (kill leftovers, remove the container). Must not throw. */
  protected abstract onExitObserved(): void;

  get exited(): AppExit | null {
    return this.latch.exit;
  }

  protected get exit(): AppExit | null {
    return this.latch.exit;
  }

  /** The durable record. */
  record(): RunningAppRecord {
    return { ...this.rec };
  }

  /** Resolves with the exit. */
  wait(): Promise<AppExit> {
    return this.latch.wait();
  }

  /** Register an exit listener; returns an unsubscribe function. */
  onExit(listener: (exit: AppExit) => void): () => void {
    return this.latch.onExit(listener);
  }

  /** Stop watching and capturing without touching the app (control-plane shutdown; re-adopt later). */
  detach(): void {
    if (this.exit || this.detached) return;
    this.detached = true;
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
    this.detachChild?.();
    this.detachChild = null;
    for (const tail of this.shared.tails) tail.stop();
  }

  /** A platform line in the project log; logging failures never break app handling. */
  protected note(line: string): void {
    try {
      this.shared.logs.system(this.projectId, this.releaseId, line);
    } catch {
      // Disk full or similar: the exit is still tracked.
    }
  }

  /** Record the exit once: stop polling and capture, log it, clean up, tell the listeners. */
  protected markExited(code: number | null, signal: string | null): void {
    if (this.exitSeen) return;
    this.exitSeen = true;
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
    this.onExitObserved();
    if (!this.detached) for (const tail of this.shared.tails) tail.stop();
    const exit: AppExit = { code, signal, at: this.shared.clock.now() };
    const how = code !== null ? `with code ${code}` : signal ? `by signal ${signal}` : '(observed after re-adoption)';
    this.note(`${this.exitLabel} ${how}`);
    this.shared.cleanup();
    this.latch.settle(exit);
  }
}

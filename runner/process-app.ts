// One app process (our child, or a re-adopted orphan): exit tracking, group stop, log draining.
import type { ChildProcess } from 'node:child_process';
import type { Clock } from '../src/core/clock.js';
import { checkProcess } from '../src/core/process-identity.js';
import type { AppExit, RunningApp, RunningAppRecord, StopOptions } from './app-runner.js';
import type { LogStore } from './log-store.js';
import type { OutputTail } from './output-tail.js';

export interface ProcessAppDeps {
  clock: Clock;
  logs: LogStore;
  graceMs: number;
  tails: OutputTail[];
  /** Called once after the process exited and its output was drained. */
  cleanup: () => void;
}

/** How exits are observed: the child's exit event, or polling /proc for an adopted process. */
export type ExitSource = { child: ChildProcess } | { pollMs: number };

/** A running `node <entry>` process group implementing RunningApp. */
export class ProcessApp implements RunningApp {
  readonly id: string;
  readonly projectId: string;
  readonly releaseId: string;
  readonly pid: number;
  readonly port: number;
  readonly host: string;
  private exit: AppExit | null = null;
  private detached = false;
  private readonly listeners = new Set<(exit: AppExit) => void>();
  private poller: NodeJS.Timeout | null = null;
  private detachChild: (() => void) | null = null;
  private readonly pollMs: number;

  constructor(
    private readonly rec: RunningAppRecord,
    private readonly deps: ProcessAppDeps,
    source: ExitSource,
  ) {
    this.id = rec.id;
    this.projectId = rec.projectId;
    this.releaseId = rec.releaseId;
    this.pid = rec.pid!;
    this.port = rec.port;
    this.host = rec.host;
    this.pollMs = 'pollMs' in source ? source.pollMs : 500;
    for (const tail of deps.tails) tail.start();
    if ('child' in source) {
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void => this.markExited(code, signal);
      source.child.once('exit', onExit);
      this.detachChild = () => source.child.off('exit', onExit);
    } else {
      this.watchByPolling();
    }
  }

  /** Observe a process that is not our child: poll pid + start time. */
  private watchByPolling(): void {
    if (!this.alive()) return this.markExited(null, null);
    this.poller = setInterval(() => {
      if (!this.alive()) this.markExited(null, null);
    }, this.pollMs);
    this.poller.unref();
  }

  get exited(): AppExit | null {
    return this.exit;
  }

  /** The durable record (pid, start time, port, run directory). */
  record(): RunningAppRecord {
    return { ...this.rec };
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
    this.signalGroup('SIGTERM');
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
      this.signalGroup('SIGKILL');
    }
    return this.wait();
  }

  /** Resolves with the exit. */
  wait(): Promise<AppExit> {
    return new Promise((resolve) => this.onExit(resolve));
  }

  /** Register an exit listener; returns an unsubscribe function. */
  onExit(listener: (exit: AppExit) => void): () => void {
    if (this.exit) {
      listener(this.exit);
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stop watching and capturing without touching the process (control-plane shutdown; re-adopt later). */
  detach(): void {
    if (this.exit || this.detached) return;
    this.detached = true;
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
    this.detachChild?.();
    this.detachChild = null;
    for (const tail of this.deps.tails) tail.stop();
  }

  /** A platform line in the project log; logging failures never break process handling. */
  private note(line: string): void {
    try {
      this.deps.logs.system(this.projectId, this.releaseId, line);
    } catch {
      // Disk full or similar: the exit is still tracked.
    }
  }

  private alive(): boolean {
    return checkProcess(this.pid, this.rec.processStartTime ?? null) === 'alive';
  }

  private signalGroup(signal: NodeJS.Signals): void {
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

  private markExited(code: number | null, signal: string | null): void {
    if (this.exit) return;
    if (this.poller) clearInterval(this.poller);
    // Leftover members of the group (children the app spawned) must not outlive it.
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // No members left.
    }
    if (!this.detached) for (const tail of this.deps.tails) tail.stop();
    const exit: AppExit = { code, signal, at: this.deps.clock.now() };
    this.exit = exit;
    const how = code !== null ? `with code ${code}` : signal ? `by signal ${signal}` : '(observed after re-adoption)';
    this.note(`exited ${how}`);
    this.deps.cleanup();
    for (const listener of [...this.listeners]) listener(exit);
    this.listeners.clear();
  }
}

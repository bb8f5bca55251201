// One app container: the foreground `podman run` client is our child (its exit is the app's exit),
// or, after re-adoption, the container is polled with `podman container inspect`.
import type { ChildProcess } from 'node:child_process';
import type { Clock } from '../../src/core/clock.js';
import type { AppExit, RunningApp, RunningAppRecord, StopOptions } from '../app-runner.js';
import type { LogStore } from '../log-store.js';
import type { OutputTail } from '../output-tail.js';

/** Effects a container app needs; podman calls are passed in so this class runs no commands itself. */
export interface ContainerAppDeps {
  clock: Clock;
  logs: LogStore;
  graceMs: number;
  tails: OutputTail[];
  /** `podman stop --time <grace>`; resolves when podman returned. */
  stopContainer: (graceMs: number) => Promise<void>;
  /** `podman rm --force`: idempotent removal. */
  removeContainer: () => Promise<void>;
  /** Whether the container still runs (adopted containers only). */
  isRunning: () => Promise<boolean>;
  /** Called once after the container exited and its output was drained. */
  cleanup: () => void;
}

export type ContainerExitSource = { child: ChildProcess } | { pollMs: number };

/** A running app container implementing RunningApp. */
export class ContainerApp implements RunningApp {
  readonly id: string;
  readonly projectId: string;
  readonly releaseId: string;
  readonly port: number;
  readonly host: string;
  private exit: AppExit | null = null;
  private detached = false;
  private readonly listeners = new Set<(exit: AppExit) => void>();
  private poller: NodeJS.Timeout | null = null;
  private detachChild: (() => void) | null = null;
  private readonly pollMs: number;
  private firstCheck: Promise<void> = Promise.resolve();

  constructor(
    private readonly rec: RunningAppRecord,
    private readonly deps: ContainerAppDeps,
    source: ContainerExitSource,
  ) {
    this.id = rec.id;
    this.projectId = rec.projectId;
    this.releaseId = rec.releaseId;
    this.port = rec.port;
    this.host = rec.host;
    this.pollMs = 'pollMs' in source ? source.pollMs : 1000;
    for (const tail of deps.tails) tail.start();
    if ('child' in source) {
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void => this.markExited(code, signal);
      source.child.once('exit', onExit);
      this.detachChild = () => source.child.off('exit', onExit);
    } else {
      this.watchByPolling();
    }
  }

  private watchByPolling(): void {
    const check = async (): Promise<void> => {
      if (this.exit || this.detached) return;
      if (!(await this.deps.isRunning().catch(() => true))) this.markExited(null, null);
    };
    this.firstCheck = check();
    this.poller = setInterval(() => void check(), this.pollMs);
    this.poller.unref();
  }

  /** Resolves once the first liveness check of an adopted container finished. */
  checked(): Promise<void> {
    return this.firstCheck;
  }

  get exited(): AppExit | null {
    return this.exit;
  }

  /** The durable record (container name, port, run directory). */
  record(): RunningAppRecord {
    return { ...this.rec };
  }

  /** `podman stop` (SIGTERM through --init, SIGKILL after the grace), then forced removal. */
  async stop(options: StopOptions = {}): Promise<AppExit> {
    if (this.exit) return this.exit;
    if (this.detached) {
      this.detached = false;
      this.watchByPolling();
    }
    const graceMs = options.graceMs ?? this.deps.graceMs;
    await this.deps.stopContainer(graceMs).catch(() => undefined);
    await this.deps.removeContainer().catch(() => undefined);
    if (!this.detachChild) this.markExited(null, null);
    let timer: NodeJS.Timeout | undefined;
    // The client exits right after the container; bound the wait in case podman misbehaves.
    await Promise.race([this.wait(), new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))]);
    clearTimeout(timer);
    if (!this.exit) this.markExited(null, 'SIGKILL');
    return this.exit!;
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

  /** Stop observing without touching the container (control-plane shutdown; re-adopt later). */
  detach(): void {
    if (this.exit || this.detached) return;
    this.detached = true;
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
    this.detachChild?.();
    this.detachChild = null;
    for (const tail of this.deps.tails) tail.stop();
  }

  private note(line: string): void {
    try {
      this.deps.logs.system(this.projectId, this.releaseId, line);
    } catch {
      // Disk full or similar: the exit is still tracked.
    }
  }

  private markExited(code: number | null, signal: string | null): void {
    if (this.exit) return;
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
    if (!this.detached) for (const tail of this.deps.tails) tail.stop();
    const exit: AppExit = { code, signal, at: this.deps.clock.now() };
    this.exit = exit;
    const how = code !== null ? `with code ${code}` : signal ? `by signal ${signal}` : '(observed after re-adoption)';
    this.note(`container exited ${how}`);
    // A container must never outlive its observed exit (e.g. the podman client was killed).
    void this.deps.removeContainer().catch(() => undefined);
    this.deps.cleanup();
    for (const listener of [...this.listeners]) listener(exit);
    this.listeners.clear();
  }
}

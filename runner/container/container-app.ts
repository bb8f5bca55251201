// One app container: the foreground `podman run` client is our child (its exit is the app's exit),
// or, after re-adoption, the container is polled with `podman container inspect`.
import type { Clock } from '../../src/core/clock.js';
import type { AppExit, RunningApp, RunningAppRecord, StopOptions } from '../app-runner.js';
import type { LogStore } from '../log-store.js';
import type { OutputTail } from '../output-tail.js';
import { TrackedApp, type ExitSource } from '../tracked-app.js';

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

export type ContainerExitSource = ExitSource;

/** A running app container implementing RunningApp. */
export class ContainerApp extends TrackedApp implements RunningApp {
  private firstCheck: Promise<void> = Promise.resolve();

  constructor(
    rec: RunningAppRecord,
    private readonly deps: ContainerAppDeps,
    source: ContainerExitSource,
  ) {
    super(rec, deps, source, 1000, 'container exited');
    this.observe(source);
  }

  protected watchByPolling(): void {
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

  /** A container must never outlive its observed exit (e.g. the podman client was killed). */
  protected onExitObserved(): void {
    void this.deps.removeContainer().catch(() => undefined);
  }
}

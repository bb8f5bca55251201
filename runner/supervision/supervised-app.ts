// A RunningApp seen through its supervisor's control connection: stop is a request, the exit is the
// supervisor's report (or the supervisor's own exit, if it died).
import type { ChildProcess } from 'node:child_process';
import type { Clock } from '../../src/core/clock.js';
import type { AppExit, RunningApp, RunningAppRecord, StopOptions } from '../app-runner.js';
import { AppExitLatch } from '../app-exit-latch.js';
import { readFence, removeFileDurably } from './fence-file.js';
import { killAndVerify, supervisorAlive } from './runtime-probe.js';
import { supervisorMessageSchema } from './supervisor-protocol.js';

/** One supervised app. */
export class SupervisedApp implements RunningApp {
  readonly id: string;
  readonly projectId: string;
  readonly releaseId: string;
  readonly pid?: number;
  readonly port: number;
  readonly host: string;
  /** Whether the supervisor verified the runtime gone (known once exited). */
  verified: boolean | null = null;
  private readonly latch = new AppExitLatch();
  private settling = false;

  constructor(
    private readonly rec: RunningAppRecord,
    private readonly child: ChildProcess,
    private readonly clock: Clock,
    private readonly graceMs: number,
    private readonly fencePath: string,
  ) {
    this.id = rec.id;
    this.projectId = rec.projectId;
    this.releaseId = rec.releaseId;
    if (rec.pid !== undefined) this.pid = rec.pid;
    this.port = rec.port;
    this.host = rec.host;
    child.on('message', (raw: unknown) => {
      const parsed = supervisorMessageSchema.safeParse(raw);
      if (parsed.success && parsed.data.type === 'exited') {
        if (parsed.data.verified) {
          this.verified = true;
          this.markExited(parsed.data.exit);
        } else void this.settleOrphan(parsed.data.exit);
      }
    });
    child.once('exit', (code, signal) => void this.settleOrphan({ code, signal, at: this.clock.now() }));
  }

  /**
   * The supervisor ended without verified cleanup (killed, or verification failed): the controller ends
   * the runtime itself before reporting the exit, so no second writer can start beside an orphan.
   */
  private async settleOrphan(exit: AppExit): Promise<void> {
    if (this.exit || this.settling) return;
    this.settling = true;
    const fence = readFence(this.fencePath);
    let verified = true;
    if (fence) {
      verified = await killAndVerify(fence.runtime, { timeoutMs: 15_000 });
      if (verified && !supervisorAlive(fence.supervisor.pid, fence.supervisor.startTime)) await removeFileDurably(this.fencePath);
    }
    this.verified = verified;
    this.markExited(exit);
  }

  /** Pid of the supervisor process. */
  get supervisorPid(): number | undefined {
    return this.child.pid;
  }

  get exited(): AppExit | null {
    return this.exit;
  }

  record(): RunningAppRecord {
    return { ...this.rec };
  }

  /** Extend the supervisor's lease. */
  renew(expiresAt: number): void {
    if (this.exit || !this.child.connected) return;
    this.child.send({ type: 'renew', expiresAt }, () => undefined);
  }

  /** Ask the supervisor to stop the runtime; resolves once it reported (or its process ended). */
  async stop(options: StopOptions = {}): Promise<AppExit> {
    if (this.exit) return this.exit;
    const graceMs = options.graceMs ?? this.graceMs;
    if (this.child.connected) this.child.send({ type: 'stop', graceMs }, () => undefined);
    let timer: NodeJS.Timeout | undefined;
    // Bounded: grace + podman/verification time. A silent supervisor is cut off; its fence then stays for recovery.
    const done = await Promise.race([
      this.wait().then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs + 30_000))),
    ]);
    clearTimeout(timer);
    if (!done) {
      if (this.child.connected) this.child.disconnect();
      try {
        process.kill(this.child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
      await this.settleOrphan({ code: null, signal: null, at: this.clock.now() });
    }
    return this.exit!;
  }

  wait(): Promise<AppExit> {
    return this.latch.wait();
  }

  onExit(listener: (exit: AppExit) => void): () => void {
    return this.latch.onExit(listener);
  }

  /** Under supervision a controller cannot let go without ending the runtime: this closes the control connection. */
  detach(): void {
    if (this.child.connected) this.child.disconnect();
  }

  private get exit(): AppExit | null {
    return this.latch.exit;
  }

  private markExited(exit: AppExit): void {
    this.latch.settle(exit);
  }
}

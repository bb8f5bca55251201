// One sandboxed app: the launcher (our child, or re-adopted) whose exit is the app's exit, the sandbox's
// init whose session holds the app, and the network helper. Stop is graceful for the app itself.
import { checkProcess } from '../../src/core/process-identity.js';
import { ProcessApp } from '../process-app.js';
import { waitForAppListening } from './app-listening.js';

function killIfSame(pid: number | undefined, startTime: string | null | undefined, signal: NodeJS.Signals, group = false): void {
  if (pid === undefined || checkProcess(pid, startTime ?? null) !== 'alive') return;
  try {
    process.kill(group ? -pid : pid, signal);
  } catch {
    // Gone in between.
  }
}

/**
 * A RunningApp inside a bubblewrap sandbox. SIGTERM goes to the session of the sandbox's init (the app
 * and what it started; init ignores it), so the app shuts down gracefully and init then exits with its
 * status. SIGKILL goes to init (the kernel then kills everything in its PID namespace) and to the
 * launcher's group (bubblewrap dies with it).
 */
export class SandboxApp extends ProcessApp {
  protected override signalStop(signal: 'SIGTERM' | 'SIGKILL'): void {
    const sandbox = this.rec.sandbox;
    if (!this.detachChild && !this.alive()) {
      this.markExited(null, null);
      return;
    }
    if (signal === 'SIGTERM') {
      killIfSame(sandbox?.initPid, sandbox?.initStartTime, 'SIGTERM', true);
      return;
    }
    killIfSame(sandbox?.initPid, sandbox?.initStartTime, 'SIGKILL');
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // The launcher is gone already.
    }
  }

  /** Resolves once the app listens inside its sandbox (an isolated network namespace only: a shared one holds the host's sockets). */
  listening(signal: AbortSignal): Promise<void> {
    const sandbox = this.rec.sandbox;
    if (!sandbox || sandbox.netPid === undefined) return new Promise<never>(() => {});
    return waitForAppListening(sandbox.initPid, signal);
  }

  /** Nothing of the sandbox outlives the app: init's namespace, the launcher group, the network helper. */
  protected override onExitObserved(): void {
    const sandbox = this.rec.sandbox;
    killIfSame(sandbox?.initPid, sandbox?.initStartTime, 'SIGKILL');
    killIfSame(sandbox?.netPid, sandbox?.netStartTime, 'SIGKILL');
    super.onExitObserved();
  }
}

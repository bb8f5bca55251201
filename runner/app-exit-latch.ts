// An app's exit, recorded once: whoever waits for it registers a listener, called once (at once when
// the app already exited). Every RunningApp implementation keeps its exit in one of these.
import type { AppExit } from './app-runner.js';

export class AppExitLatch {
  private value: AppExit | null = null;
  private readonly listeners = new Set<(exit: AppExit) => void>();

  get exit(): AppExit | null {
    return this.value;
  }

  /** Record the exit and tell the listeners; false when one was already recorded. */
  settle(exit: AppExit): boolean {
    if (this.value) return false;
    this.value = exit;
    const listeners = [...this.listeners];
    this.listeners.clear();
    for (const listener of listeners) listener(exit);
    return true;
  }

  /** Register an exit listener; returns an unsubscribe function. */
  onExit(listener: (exit: AppExit) => void): () => void {
    if (this.value) {
      listener(this.value);
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  wait(): Promise<AppExit> {
    return new Promise((resolve) => this.onExit(resolve));
  }

  /** Drop every listener (stop observing without an exit). */
  clear(): void {
    this.listeners.clear();
  }
}

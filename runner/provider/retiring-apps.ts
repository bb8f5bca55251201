// Apps a blue-green switch replaced: each keeps serving until the control plane acknowledges the route
// to its successor (the agent calls `stopUpTo` once the observation was accepted, which the control
// plane answers only after the route moved and the old target drained), or `graceMs` at the latest.
import type { RunningApp } from '../app-runner.js';

interface RetiringApp {
  app: RunningApp;
  successorGeneration: number;
  timer: NodeJS.Timeout;
}

/** Per project, the replaced apps still serving. */
export class RetiringApps {
  readonly #byProject = new Map<string, RetiringApp[]>();

  constructor(private readonly options: { graceMs: number; stopGraceMs: number; onError?: (error: unknown, context: string) => void }) {}

  /** Keep `app` serving until generation `successorGeneration` is routed (bounded by graceMs). */
  retire(projectId: string, app: RunningApp, successorGeneration: number): void {
    const entry: RetiringApp = { app, successorGeneration, timer: setTimeout(() => void this.#stop(projectId, entry), this.options.graceMs) };
    entry.timer.unref();
    this.#byProject.set(projectId, [...(this.#byProject.get(projectId) ?? []), entry]);
  }

  /** Stop the project's replaced apps whose successor generation is at most `generation` (all by default). */
  async stopUpTo(projectId: string, generation = Number.MAX_SAFE_INTEGER): Promise<void> {
    const due = (this.#byProject.get(projectId) ?? []).filter((e) => e.successorGeneration <= generation);
    await Promise.all(due.map((entry) => this.#stop(projectId, entry)));
  }

  /** Releases whose replaced apps still run (their directories must stay). */
  releaseIds(projectId: string): string[] {
    return (this.#byProject.get(projectId) ?? []).map((e) => e.app.releaseId);
  }

  /** Stop every replaced app (shutdown). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#byProject.keys()].map((projectId) => this.stopUpTo(projectId)));
  }

  async #stop(projectId: string, entry: RetiringApp): Promise<void> {
    clearTimeout(entry.timer);
    const rest = (this.#byProject.get(projectId) ?? []).filter((e) => e !== entry);
    if (rest.length > 0) this.#byProject.set(projectId, rest);
    else this.#byProject.delete(projectId);
    await entry.app
      .stop({ graceMs: this.options.stopGraceMs })
      .catch((error: unknown) => this.options.onError?.(error, `stopping a replaced app of ${projectId}`));
  }
}

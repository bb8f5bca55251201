// How the swarm driver follows a served project between deploys: swarm restarts a task that died (a
// new task, a new published port), and the pipeline must hear of it to move the ingress. Pure: one
// poll's tasks against what the driver knew, as the event to report.
import type { SwarmTask } from './engine-schemas.js';
import { publishedPort, servingTasks, taskEnded } from './task-observation.js';

/** What the driver knows of a served project between polls. */
export interface ServedView {
  generation: number;
  /** The task the ingress routes to; null while swarm restarts it. */
  taskId: string | null;
}

export type WatchChange =
  | { type: 'none' }
  /** The routed task ended (or vanished): swarm starts a replacement. */
  | { type: 'crashed'; task: SwarmTask | undefined }
  /** A task of the served generation serves while none was routed: the new address. */
  | { type: 'started'; task: SwarmTask; port: number };

/** The change one poll shows. */
export function reconcileServed(view: ServedView, tasks: readonly SwarmTask[]): WatchChange {
  if (view.taskId !== null) {
    const task = tasks.find((t) => t.ID === view.taskId);
    if (!task || taskEnded(task) || task.DesiredState !== 'running') return { type: 'crashed', task };
    return { type: 'none' };
  }
  const serving = servingTasks(tasks, view.generation)[0];
  return serving ? { type: 'started', task: serving, port: publishedPort(serving)! } : { type: 'none' };
}

/** Uptime after which a crash no longer counts towards the streak. */
export const STABLE_UPTIME_MS = 60_000;

/** The crash streak after a crash with this uptime (reset after a stable run). */
export function nextStreak(streak: number, uptimeMs: number): number {
  return uptimeMs >= STABLE_UPTIME_MS ? 1 : streak + 1;
}

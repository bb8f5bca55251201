// The swarm driver's view of what serves: per project its served generation and the task the ingress
// routes to, kept current by polling the service's tasks. Swarm restarts a task that died; the watch
// reports `crashed`, then `started` with the new port (the pipeline re-routes on it). Projects with a
// driver operation in flight are not polled (their tasks change on purpose), and a canary's task is
// watched only for its end. After a control-plane restart, `recover` rebuilds the view from labels.
import type { Clock } from '../../src/core/clock.js';
import type { SupervisedStatus, SupervisorEvent } from '../release-driver.js';
import { SWARM_RESTART_DELAY_MS } from './service-spec.js';
import { removeService, specGeneration } from './service-control.js';
import type { SwarmApp, SwarmAppObservation } from './swarm-app.js';
import { SWARM_LABELS, swarmServiceName } from './swarm-names.js';
import type { SwarmRuntime } from './swarm-runtime.js';
import { publishedPort, servingTasks, taskEnded, taskExit } from './task-observation.js';
import { nextStreak, reconcileServed } from './task-watch.js';

interface Served {
  releaseId: string;
  generation: number;
  app: SwarmApp | null;
  streak: number;
  startedAt: number;
}

/** A project the watch found serving at recovery. */
export interface ServedProject {
  projectId: string;
  releaseId: string;
}

export interface SwarmWatchDeps {
  runtime: () => Promise<SwarmRuntime>;
  onEvent: (event: SupervisorEvent) => void;
  intervalMs: number;
  clock: Clock;
  appOf: (init: SwarmAppObservation) => SwarmApp;
}

export class SwarmWatch {
  private readonly served = new Map<string, Served>();
  private readonly canaries = new Map<string, SwarmApp>();
  private readonly busy = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;
  private stopped = false;

  constructor(private readonly deps: SwarmWatchDeps) {}

  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.tick(), this.deps.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const entry of this.served.values()) entry.app?.detach();
    for (const canary of this.canaries.values()) canary.detach();
  }

  /** Run `fn` with the project's polling paused (when `pause`): its tasks change on purpose meanwhile. */
  async paused<T>(projectId: string, pause: boolean, fn: () => Promise<T>): Promise<T> {
    if (!pause) return fn();
    this.busy.set(projectId, (this.busy.get(projectId) ?? 0) + 1);
    try {
      return await fn();
    } finally {
      const left = (this.busy.get(projectId) ?? 1) - 1;
      if (left > 0) this.busy.set(projectId, left);
      else this.busy.delete(projectId);
    }
  }

  /** `app` is the project's served app from now on. */
  serve(app: SwarmApp): void {
    const previous = this.served.get(app.projectId)?.app;
    if (previous && previous !== app) previous.markExited({ code: 0, signal: 'SIGTERM', at: this.deps.clock.now() });
    this.served.set(app.projectId, { releaseId: app.releaseId, generation: app.generation, app, streak: 0, startedAt: this.deps.clock.now() });
  }

  /** The project serves `generation`, whose task swarm is still (re)starting. */
  serveRestarting(projectId: string, releaseId: string, generation: number): void {
    this.served.set(projectId, { releaseId, generation, app: null, streak: 1, startedAt: this.deps.clock.now() });
  }

  /** The project serves nothing (stopped or removed). */
  forget(projectId: string): void {
    const entry = this.served.get(projectId);
    this.served.delete(projectId);
    entry?.app?.markExited({ code: 0, signal: 'SIGTERM', at: this.deps.clock.now() });
  }

  watchCanary(app: SwarmApp): void {
    this.canaries.set(app.projectId, app);
  }

  unwatchCanary(projectId: string): void {
    this.canaries.delete(projectId);
  }

  projects(): string[] {
    return [...this.served.keys()];
  }

  current(projectId: string): SwarmApp | null {
    const app = this.served.get(projectId)?.app ?? null;
    return app && !app.exited ? app : null;
  }

  status(projectId: string): SupervisedStatus | null {
    const entry = this.served.get(projectId);
    if (!entry) return null;
    const app = entry.app && !entry.app.exited ? entry.app : null;
    return { releaseId: entry.releaseId, state: app ? 'running' : 'restarting', pid: null, port: app?.port ?? null, crashStreak: entry.streak };
  }

  /** After a control-plane restart: adopt every project service that runs (swarm kept it running); drop interrupted canaries and jobs. */
  async recover(rt: SwarmRuntime): Promise<ServedProject[]> {
    const found: ServedProject[] = [];
    for (const service of await rt.engine.listServices({ [SWARM_LABELS.role]: 'app' })) {
      const projectId = service.spec.Labels?.[SWARM_LABELS.project];
      const releaseId = service.spec.Labels?.[SWARM_LABELS.release];
      const generation = specGeneration(service.spec);
      const replicas = (service.spec as { Mode?: { Replicated?: { Replicas?: number } } }).Mode?.Replicated?.Replicas ?? 0;
      if (!projectId || !releaseId || generation === null || replicas === 0 || this.served.has(projectId)) continue;
      const previous = specGeneration(service.previousSpec);
      rt.access.keepOnly(projectId, previous === null ? [generation] : [generation, previous]);
      found.push({ projectId, releaseId });
      const task = servingTasks(await rt.engine.listTasks({ service: service.id }), generation)[0];
      if (!task?.NodeID) {
        this.serveRestarting(projectId, releaseId, generation);
        continue;
      }
      const node = await rt.node(task.NodeID);
      const app = this.deps.appOf({
        projectId,
        releaseId,
        role: 'app',
        serviceName: service.spec.Name,
        generation,
        host: node.address,
        state: { kind: 'running', task, port: publishedPort(task)! },
      });
      this.serve(app);
      this.deps.onEvent({ type: 'adopted', projectId, releaseId, port: app.port });
    }
    for (const role of ['canary', 'job'] as const) {
      for (const service of await rt.engine.listServices({ [SWARM_LABELS.role]: role }))
        await removeService(rt.engine, service.spec.Name, rt.settings.drainMs + 40_000).catch(() => undefined);
    }
    return found;
  }

  /** One poll of every served project and canary not in the middle of a driver operation. */
  private async tick(): Promise<void> {
    if (this.ticking || this.stopped) return;
    this.ticking = true;
    try {
      const rt = await this.deps.runtime();
      for (const [projectId, entry] of [...this.served]) {
        if (this.busy.has(projectId)) continue;
        const tasks = await rt.engine.listTasks({ service: swarmServiceName(projectId, 'app') }).catch(() => null);
        if (!tasks || this.busy.has(projectId) || this.served.get(projectId) !== entry || this.stopped) continue;
        const change = reconcileServed({ generation: entry.generation, taskId: entry.app?.id ?? null }, tasks);
        const now = this.deps.clock.now();
        if (change.type === 'crashed' && entry.app) {
          const exit = change.task ? taskExit(change.task, now) : { code: null, signal: null, at: now };
          const uptimeMs = now - entry.startedAt;
          entry.streak = nextStreak(entry.streak, uptimeMs);
          entry.app.markExited(exit);
          entry.app = null;
          this.deps.onEvent({
            type: 'crashed',
            projectId,
            releaseId: entry.releaseId,
            exit,
            uptimeMs,
            restartInMs: SWARM_RESTART_DELAY_MS,
            streak: entry.streak,
          });
        } else if (change.type === 'started' && change.task.NodeID) {
          const node = await rt.node(change.task.NodeID);
          if (this.busy.has(projectId) || this.served.get(projectId) !== entry) continue;
          entry.app = this.deps.appOf({
            projectId,
            releaseId: entry.releaseId,
            role: 'app',
            serviceName: swarmServiceName(projectId, 'app'),
            generation: entry.generation,
            host: node.address,
            state: { kind: 'running', task: change.task, port: change.port },
          });
          entry.startedAt = now;
          this.deps.onEvent({ type: 'started', projectId, releaseId: entry.releaseId, port: change.port });
        }
      }
      for (const [projectId, canary] of [...this.canaries]) {
        const tasks = await rt.engine.listTasks({ service: canary.serviceName }).catch(() => null);
        const task = tasks?.find((t) => t.ID === canary.id);
        if (tasks && this.canaries.get(projectId) === canary && (!task || taskEnded(task))) {
          this.canaries.delete(projectId);
          canary.markExited(task ? taskExit(task, this.deps.clock.now()) : { code: null, signal: null, at: this.deps.clock.now() });
        }
      }
    } catch {
      // The engine did not answer this time; the next poll tries again.
    } finally {
      this.ticking = false;
    }
  }
}

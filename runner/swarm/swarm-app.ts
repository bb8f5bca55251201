// One task of a project's swarm service as the pipeline sees an app: reached at its node's address
// and the port swarm published for it. Exits are what the driver's task watch observes; stopping is
// the driver's (a candidate's stop rolls its service update back, a canary's removes its service).
import type { AppExit, RunningApp, RunningAppRecord, StopOptions } from '../app-runner.js';
import { AppExitLatch } from '../app-exit-latch.js';
import type { CandidateState } from './task-observation.js';

export type SwarmRole = 'app' | 'canary';

export interface SwarmAppInit {
  projectId: string;
  releaseId: string;
  role: SwarmRole;
  serviceName: string;
  generation: number;
  /** The task, or a placeholder id for a candidate that never ran. */
  taskId: string;
  host: string;
  port: number;
  startedAt: number;
  /** Why a candidate is not running (Docker rolled it back, a task of it ended, it never came up in time). */
  failure?: Extract<CandidateState, { kind: 'failed' }>;
  /** What stopping this app means for its service. */
  stop: (app: SwarmApp) => Promise<void>;
  now: () => number;
}

/** What the driver knows of an app from its service and task observation; the rest of its init is the driver's. */
export type SwarmAppObservation = Pick<SwarmAppInit, 'projectId' | 'releaseId' | 'role' | 'serviceName' | 'generation' | 'host'> & { state: CandidateState };

export class SwarmApp implements RunningApp {
  readonly id: string;
  readonly projectId: string;
  readonly releaseId: string;
  readonly role: SwarmRole;
  readonly serviceName: string;
  readonly generation: number;
  readonly host: string;
  readonly port: number;
  readonly failure: SwarmAppInit['failure'];
  private readonly latch = new AppExitLatch();
  private stopping: Promise<AppExit> | null = null;

  constructor(private readonly init: SwarmAppInit) {
    this.id = init.taskId;
    this.projectId = init.projectId;
    this.releaseId = init.releaseId;
    this.role = init.role;
    this.serviceName = init.serviceName;
    this.generation = init.generation;
    this.host = init.host;
    this.port = init.port;
    this.failure = init.failure;
    if (init.failure) this.markExited({ code: init.failure.exitCode, signal: null, at: init.now() });
  }

  get exited(): AppExit | null {
    return this.latch.exit;
  }

  record(): RunningAppRecord {
    return {
      kind: 'swarm',
      id: this.id,
      projectId: this.projectId,
      releaseId: this.releaseId,
      port: this.port,
      host: this.host,
      startedAt: this.init.startedAt,
      swarm: { serviceName: this.serviceName, taskId: this.id, generation: this.generation, role: this.role },
    };
  }

  /** The task ended (seen by the driver's watch, or the candidate never ran). Listeners run once. */
  markExited(exit: AppExit): void {
    this.latch.settle(exit);
  }

  stop(_options?: StopOptions): Promise<AppExit> {
    this.stopping ??= this.init.stop(this).then(() => {
      this.markExited({ code: null, signal: 'SIGTERM', at: this.init.now() });
      return this.latch.exit!;
    });
    return this.stopping;
  }

  wait(): Promise<AppExit> {
    return this.latch.wait();
  }

  onExit(listener: (exit: AppExit) => void): () => void {
    return this.latch.onExit(listener);
  }

  /** Stop observing; the task keeps running in the swarm (the control plane is not its supervisor). */
  detach(): void {
    this.latch.clear();
  }
}

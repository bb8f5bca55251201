// The ReleaseDriver over a Docker swarm (SVC_DRIVER=swarm). A project is one replicated service; a
// release is a start-first service update Docker health-gates and rolls back on failure; a canary is a
// second service; jobs are swarm jobs beside the project's volume. Swarm restarts tasks by itself: the
// driver watches the served tasks and tells the pipeline where a restarted one listens, and follows
// their output into the project log. See docs/swarm.md.
import type { Clock } from '../../src/core/clock.js';
import { systemClock } from '../../src/core/clock.js';
import { SvcError } from '../../src/core/errors.js';
import { checkAppHealth } from '../health-check.js';
import type {
  AppStartSpec,
  HealthResult,
  LogStore,
  ReleaseArtifact,
  ReleaseDriver,
  ReleaseDriverHooks,
  ReleaseJob,
  ReleaseJobResults,
  RunningApp,
  RunningAppRecord,
  SandboxStatus,
  SupervisedStatus,
} from '../release-driver.js';
import type { ContainerLimits } from '../container/podman-args.js';
import type { EngineClient } from './engine-client.js';
import { imageMissingError } from './image-missing.js';
import { SwarmReleaseFiles } from './release-files.js';
import { launchRelease, projectNode } from './release-launch.js';
import { SWARM_HEALTH_INTERVAL_MS, SWARM_HEALTH_RETRIES } from './service-spec.js';
import { awaitCandidate, awaitSettled, candidateTimeoutMs, removeService, rollBackGeneration, scaleService, viewService } from './service-control.js';
import { SwarmApp, type SwarmAppObservation, type SwarmRole } from './swarm-app.js';
import { checkSwarmHealth } from './swarm-health.js';
import { SwarmJobs, type LocatePath } from './swarm-jobs.js';
import { swarmServiceName } from './swarm-names.js';
import { openSwarmRuntime, type SwarmRuntime } from './swarm-runtime.js';
import type { SwarmSettings } from './swarm-settings.js';
import { ProjectGenerations } from './project-generations.js';
import { removeSwarmProject } from './project-removal.js';
import { SwarmWatch, type ServedProject } from './swarm-watch.js';
import { ServiceLogFollows } from './service-log-follow.js';
import { isServing, publishedPort, type CandidateState } from './task-observation.js';

export interface SwarmReleaseDriverOptions extends ReleaseDriverHooks {
  settings: SwarmSettings;
  /** Limits of every task (default: the podman runner's). */
  limits?: ContainerLimits;
  engine: EngineClient;
  logs: LogStore;
  /** The driver's own files (the release credential key, the projects' nodes). */
  stateDir: string;
  /** The project (and release) a control-plane path belongs to. */
  locate: LocatePath;
  /** The directory of a release (where its kept artifact lies beside). */
  releaseDirOf: (projectId: string, releaseId: string) => string;
  /** Builds the base image when SVC_SWARM_IMAGE is not set. */
  buildImage: (engine: EngineClient) => Promise<string>;
  clock?: Clock;
  /** How often served tasks are polled (default 1 s). */
  watchIntervalMs?: number;
}

export class SwarmReleaseDriver implements ReleaseDriver {
  readonly kind = 'swarm' as const;
  readonly keepsArtifacts = true;
  readonly logs: LogStore;
  private readonly files: SwarmReleaseFiles;
  private readonly jobs: SwarmJobs;
  private readonly watch: SwarmWatch;
  private readonly clock: Clock;
  private readonly generations = new ProjectGenerations();
  /** App output of every service the driver runs, into the project log. */
  private readonly output: ServiceLogFollows;
  private runtime: Promise<SwarmRuntime> | null = null;

  constructor(private readonly options: SwarmReleaseDriverOptions) {
    this.logs = options.logs;
    this.clock = options.clock ?? systemClock;
    this.files = new SwarmReleaseFiles({
      locate: options.locate,
      jobReleaseDir: (releaseId) => this.jobs.releaseDirOf(releaseId),
      releaseDirOf: options.releaseDirOf,
    });
    this.jobs = new SwarmJobs({
      runtime: () => this.ready(),
      artifacts: this.files.artifacts,
      locate: options.locate,
      logs: options.logs,
      ...(options.limits ? { limits: options.limits } : {}),
    });
    this.output = new ServiceLogFollows({ engine: async () => (await this.ready()).engine, logs: options.logs });
    this.watch = new SwarmWatch({
      runtime: () => this.ready(),
      onEvent: (event) => options.onEvent(event),
      intervalMs: options.watchIntervalMs ?? 1_000,
      clock: this.clock,
      appOf: (init) => this.app(init),
    });
  }

  /** Engine, node, image, endpoint: set up once; a failure stops start-up (recover rethrows it). */
  private ready(): Promise<SwarmRuntime> {
    this.runtime ??= openSwarmRuntime({
      engine: this.options.engine,
      settings: this.options.settings,
      clock: this.clock,
      stateDir: this.options.stateDir,
      buildImage: this.options.buildImage,
      endpoint: { artifactFor: (releaseId, projectId) => this.files.artifactFor(releaseId, projectId), jobs: this.jobs },
    }).then((rt) => {
      this.watch.start();
      return rt;
    });
    return this.runtime;
  }

  stage(input: { releaseDir: string; place: (dir: string) => Promise<void>; artifact?: ReleaseArtifact }): Promise<void> {
    return this.files.stage(input);
  }

  unstage(releaseDir: string): Promise<void> {
    return this.files.unstage(releaseDir);
  }

  async runJob<J extends ReleaseJob>(job: J): Promise<ReleaseJobResults[J['type']]> {
    return this.jobs.run(job);
  }

  async startCandidate(projectId: string, releaseId: string, options: { canary?: boolean } = {}): Promise<RunningApp> {
    const rt = await this.ready();
    const role: SwarmRole = options.canary ? 'canary' : 'app';
    return this.watch.paused(projectId, role === 'app', async () => {
      const app = await this.launch(rt, await this.options.resolveSpec(projectId, releaseId), role);
      if (role === 'canary' && !app.failure) this.watch.watchCanary(app);
      return app;
    });
  }

  /** Launch a generation and wait until it serves or failed (a failed one is an app that exited). */
  private async launch(rt: SwarmRuntime, spec: AppStartSpec, role: SwarmRole): Promise<SwarmApp> {
    this.files.remember(spec.releaseId, spec.releaseDir);
    const generation = await this.generations.next(rt, spec.projectId);
    const node = await projectNode(rt, spec.projectId);
    const name = swarmServiceName(spec.projectId, role);
    if (role === 'canary') await this.removeCanary(rt, spec.projectId); // an interrupted canary's leftovers
    this.output.follow(spec.projectId, name);
    await launchRelease(rt, this.files.artifacts, {
      spec,
      role,
      generation,
      node,
      replicas: role === 'app' ? rt.settings.replicas : 1,
      ...(this.options.limits ? { limits: this.options.limits } : {}),
    });
    const health = spec.release?.health.timeoutMs ?? 30_000;
    const state = await awaitCandidate(rt.engine, name, generation, candidateTimeoutMs(rt, health, SWARM_HEALTH_RETRIES, SWARM_HEALTH_INTERVAL_MS));
    if (state.kind === 'failed' && state.code === 'SVC_SWARM_IMAGE_MISSING') {
      await rollBackGeneration(rt.engine, name, generation, this.settleMs(rt)).catch(() => undefined);
      throw imageMissingError(rt, node.id, `release ${spec.releaseId} of ${spec.projectId}`);
    }
    return this.app({ projectId: spec.projectId, releaseId: spec.releaseId, role, serviceName: name, generation, host: node.address, state });
  }

  private app(init: SwarmAppObservation): SwarmApp {
    const { state } = init;
    return new SwarmApp({
      ...init,
      taskId: state.kind === 'running' ? state.task.ID : `${init.serviceName}.g${init.generation}`,
      port: state.kind === 'running' ? state.port : 0,
      startedAt: this.clock.now(),
      ...(state.kind === 'failed' ? { failure: state } : {}),
      stop: (app) => this.stopApp(app),
      now: () => this.clock.now(),
    });
  }

  async checkHealth(app: RunningApp, health: { path: string; timeoutMs: number; signal?: AbortSignal }): Promise<HealthResult> {
    if (!(app instanceof SwarmApp)) return checkAppHealth(app, health);
    if (app.failure) return checkSwarmHealth(this.options.engine, this.clock, app, health);
    return checkSwarmHealth((await this.ready()).engine, this.clock, app, health);
  }

  async serve(app: RunningApp): Promise<void> {
    if (!(app instanceof SwarmApp)) throw new SvcError('SVC_INTERNAL', 'The swarm driver serves only its own apps');
    const rt = await this.ready();
    await this.watch.paused(app.projectId, true, async () => {
      if (app.role === 'canary') return this.promote(rt, app);
      await this.settle(rt, app);
      this.watch.serve(app);
      await this.cleanup(rt, app.projectId);
    });
  }

  /** A canary that passed: the project's service takes its release, the ingress follows, the canary service goes. */
  private async promote(rt: SwarmRuntime, canary: SwarmApp): Promise<void> {
    const app = await this.launch(rt, await this.options.resolveSpec(canary.projectId, canary.releaseId), 'app');
    if (app.failure) throw new SvcError(app.failure.code, `Promoting the canary of ${canary.releaseId} failed: ${app.failure.reason}`);
    this.watch.serve(app);
    this.options.onEvent({ type: 'started', projectId: app.projectId, releaseId: app.releaseId, port: app.port });
    await this.settle(rt, app);
    // The canary's task keeps serving for the lame-duck window while the ingress moves to the new task.
    await this.removeCanary(rt, canary.projectId);
    this.watch.unwatchCanary(canary.projectId);
    canary.markExited({ code: 0, signal: null, at: this.clock.now() });
    await this.cleanup(rt, app.projectId);
  }

  /** Wait for the update to complete and the replaced tasks to end (a slow stop is logged, not fatal). */
  private async settle(rt: SwarmRuntime, app: SwarmApp): Promise<void> {
    if (!(await awaitSettled(rt.engine, app.serviceName, app.generation, rt.settings.replicas, this.settleMs(rt)))) {
      this.logs.system(app.projectId, app.releaseId, `swarm: tasks replaced by generation ${app.generation} had not stopped within ${this.settleMs(rt)} ms`);
    }
  }

  async startServing(projectId: string, releaseId: string): Promise<RunningApp> {
    const rt = await this.ready();
    return this.watch.paused(projectId, true, async () => {
      const app = await this.launch(rt, await this.options.resolveSpec(projectId, releaseId), 'app');
      if (app.failure) {
        // Swarm keeps restarting it; the watch reports the task that comes up.
        this.watch.serveRestarting(projectId, releaseId, app.generation);
        return app;
      }
      await this.settle(rt, app);
      this.watch.serve(app);
      await this.cleanup(rt, projectId);
      this.options.onEvent({ type: 'started', projectId, releaseId, port: app.port });
      return app;
    });
  }

  /** A candidate's stop: roll its update back (or remove its canary); the served app's: stop the project. */
  private async stopApp(app: SwarmApp): Promise<void> {
    const rt = await this.ready();
    // Rolling back a candidate leaves the served task alone, as a rule; should the engine replace it
    // anyway (it stops it with a lame-duck window), the unpaused watch follows the new task and the
    // ingress moves to it instead of pointing at the stopped one.
    const servedStaysWatched = app.role === 'app' && this.watch.current(app.projectId) !== app;
    await this.watch.paused(app.projectId, app.role === 'app' && !servedStaysWatched, async () => {
      if (app.role === 'canary') {
        this.watch.unwatchCanary(app.projectId);
        await this.removeCanary(rt, app.projectId);
      } else if (this.watch.current(app.projectId) === app) {
        await this.stopProject(rt, app.projectId);
      } else {
        await rollBackGeneration(rt.engine, app.serviceName, app.generation, this.settleMs(rt));
      }
      await this.cleanup(rt, app.projectId);
    });
  }

  /** The pipeline drained the ingress first (migration deploys, restores): no lame-duck window needed. */
  async stop(projectId: string): Promise<void> {
    const rt = await this.ready();
    await this.watch.paused(projectId, true, () => this.stopProject(rt, projectId, { endLameDuck: true }));
  }

  private async stopProject(rt: SwarmRuntime, projectId: string, options: { endLameDuck?: boolean } = {}): Promise<void> {
    this.watch.forget(projectId);
    if (!(await scaleService(rt.engine, swarmServiceName(projectId, 'app'), 0, this.settleMs(rt), options))) {
      throw new SvcError('SVC_SWARM_REQUEST_FAILED', `The tasks of ${projectId} did not stop within ${this.settleMs(rt)} ms`);
    }
  }

  current(projectId: string): RunningApp | null {
    return this.watch.current(projectId);
  }

  status(projectId: string): SupervisedStatus | null {
    return this.watch.status(projectId);
  }

  async adopt(record: RunningAppRecord): Promise<RunningApp | null> {
    if (record.kind !== 'swarm' || !record.swarm) return null;
    const rt = await this.ready();
    const { service, tasks } = await viewService(rt.engine, record.swarm.serviceName);
    const task = tasks.find((t) => t.ID === record.swarm?.taskId);
    if (!service || !task || !isServing(task) || !task.NodeID) return null;
    this.files.remember(record.releaseId, this.options.releaseDirOf(record.projectId, record.releaseId));
    const node = await rt.node(task.NodeID);
    const state: CandidateState = { kind: 'running', task, port: publishedPort(task)! };
    if (record.swarm.role === 'app') this.output.follow(record.projectId, record.swarm.serviceName);
    return this.app({
      projectId: record.projectId,
      releaseId: record.releaseId,
      role: record.swarm.role,
      serviceName: record.swarm.serviceName,
      generation: record.swarm.generation,
      host: node.address,
      state,
    });
  }

  async recover(): Promise<void> {
    const rt = await this.ready();
    const served: ServedProject[] = await this.watch.recover(rt);
    for (const project of served) {
      this.files.remember(project.releaseId, this.options.releaseDirOf(project.projectId, project.releaseId));
      this.output.follow(project.projectId, swarmServiceName(project.projectId, 'app'));
    }
  }

  async stopAll(): Promise<void> {
    const rt = this.runtime ? await this.runtime.catch(() => null) : null;
    if (rt?.settings.stopOnClose) for (const projectId of this.watch.projects()) await this.stop(projectId).catch(() => undefined);
    await this.detachAll();
  }

  async detachAll(): Promise<void> {
    this.watch.stop();
    await this.output.stopAll();
    const rt = this.runtime ? await this.runtime.catch(() => null) : null;
    await rt?.close();
  }

  sandboxStatus(): SandboxStatus | undefined {
    return undefined;
  }

  async removeProject(projectId: string): Promise<void> {
    const rt = await this.ready();
    await this.watch.paused(projectId, true, async () => {
      this.watch.forget(projectId);
      this.watch.unwatchCanary(projectId);
      await this.output.unfollowProject(projectId);
      await removeSwarmProject(rt.engine, projectId, this.settleMs(rt));
      rt.access.revokeProject(projectId);
      this.generations.forget(projectId);
      await rt.placements.forget(projectId);
    });
  }

  /** Remove a project's canary service; its output was followed until it went. */
  private async removeCanary(rt: SwarmRuntime, projectId: string): Promise<void> {
    const name = swarmServiceName(projectId, 'canary');
    await removeService(rt.engine, name, this.settleMs(rt));
    await this.output.unfollow(name);
  }

  private cleanup(rt: SwarmRuntime, projectId: string): Promise<void> {
    return this.generations.retire(rt, projectId, (line) => this.logs.system(projectId, '-', `swarm: ${line}`));
  }

  /** Bound on waits for tasks to stop: the lame-duck window, the app's own shutdown, and slack. */
  private settleMs(rt: SwarmRuntime): number {
    return rt.settings.drainMs + 40_000;
  }
}

// The ReleaseDriver for apps on this machine, once for every local AppRunner (sandbox, podman, plain
// process): candidates start through the runner, the Supervisor keeps the serving app running, and
// the one-off jobs (runner/jobs) run beside the project's data. openLocalReleaseDriver picks the
// runner the SVC_* settings select.
import { join } from 'node:path';
import type { Clock } from '../src/core/clock.js';
import type { AppRunner, RunningApp, RunningAppRecord } from './app-runner.js';
import { selectAppRunner } from './container/select-runner.js';
import { checkAppHealth, type HealthResult } from './health-check.js';
import { runReleaseJob } from './jobs/run-release-job.js';
import { LogStore } from './log-store.js';
import { platformPackageDir } from './platform-package-dir.js';
import { prepareReleaseDir, removeReleaseDir } from './prepare-release-dir.js';
import type { ReleaseDriver, ReleaseDriverHooks, ReleaseJob, ReleaseJobResults, SandboxStatus, SupervisedStatus } from './release-driver.js';
import { SandboxRunner } from './sandbox/sandbox-runner.js';
import { readSandboxSettings } from './sandbox/sandbox-settings.js';
import { Supervisor } from './supervisor.js';

export interface LocalReleaseDriverOptions extends ReleaseDriverHooks {
  runner: AppRunner;
  logs: LogStore;
  /** The Supervisor's durable state (which release and app record per project). */
  stateFile: string;
  /** The svc package root, linked into each release (see prepare-release-dir.ts). */
  packageDir: string;
  clock?: Clock;
}

/** Local apps: any AppRunner under one Supervisor, with runner/jobs for the one-off work. */
export class LocalReleaseDriver implements ReleaseDriver {
  readonly kind: AppRunner['kind'];
  readonly logs: LogStore;
  private readonly runner: AppRunner;
  private readonly supervisor: Supervisor;

  constructor(private readonly options: LocalReleaseDriverOptions) {
    this.runner = options.runner;
    this.kind = options.runner.kind;
    this.logs = options.logs;
    this.supervisor = new Supervisor({
      runner: options.runner,
      stateFile: options.stateFile,
      resolveSpec: (projectId, releaseId) => options.resolveSpec(projectId, releaseId),
      onEvent: (event) => options.onEvent(event),
      ...(options.clock ? { clock: options.clock } : {}),
    });
  }

  async stage(input: { releaseDir: string; place: (dir: string) => Promise<void> }): Promise<void> {
    await input.place(input.releaseDir);
    await prepareReleaseDir({ releaseDir: input.releaseDir, platformPackageDir: this.options.packageDir });
  }

  unstage(releaseDir: string): Promise<void> {
    return removeReleaseDir(releaseDir);
  }

  async runJob<J extends ReleaseJob>(job: J): Promise<ReleaseJobResults[J['type']]> {
    return runReleaseJob(job);
  }

  startCandidate(projectId: string, releaseId: string): Promise<RunningApp> {
    return this.options.resolveSpec(projectId, releaseId).then((spec) => this.runner.start(spec));
  }

  checkHealth(app: RunningApp, health: { path: string; timeoutMs: number; signal?: AbortSignal }): Promise<HealthResult> {
    return checkAppHealth(app, health);
  }

  serve(app: RunningApp): Promise<void> {
    return this.supervisor.supervise(app);
  }

  startServing(projectId: string, releaseId: string): Promise<RunningApp> {
    return this.supervisor.start(projectId, releaseId);
  }

  async stop(projectId: string): Promise<void> {
    await this.supervisor.stop(projectId);
  }

  current(projectId: string): RunningApp | null {
    return this.supervisor.current(projectId);
  }

  status(projectId: string): SupervisedStatus | null {
    return this.supervisor.status(projectId);
  }

  adopt(record: RunningAppRecord): Promise<RunningApp | null> {
    return this.runner.adopt(record);
  }

  recover(): Promise<void> {
    return this.supervisor.recover();
  }

  stopAll(): Promise<void> {
    return this.supervisor.stopAll();
  }

  detachAll(): Promise<void> {
    return this.supervisor.detachAll();
  }

  sandboxStatus(): SandboxStatus | undefined {
    return this.runner instanceof SandboxRunner ? this.runner.status() : undefined;
  }
}

export interface OpenLocalReleaseDriverOptions extends ReleaseDriverHooks {
  /** The control plane's data directory (runs, logs and the supervisor state live under it). */
  dataDir: string;
  clock?: Clock;
  /** SIGTERM → SIGKILL grace of app processes (default: the runner's). */
  stopGraceMs?: number;
  /** The sandbox uid of a project's apps from the configured uid base (svc running as root). */
  uidFor: (projectId: string, uidBase: number | undefined) => number;
  /** Folders made passable (search only) for project uids. */
  traversableRoots: readonly string[];
}

/** The local driver over the runner SVC_RUNNER / SVC_SANDBOX select (see selectAppRunner). */
export function openLocalReleaseDriver(env: Readonly<Record<string, string | undefined>>, options: OpenLocalReleaseDriverOptions): LocalReleaseDriver {
  const logs = new LogStore({ dir: join(options.dataDir, 'logs'), ...(options.clock ? { clock: options.clock } : {}) });
  const uidBase = readSandboxSettings(env).uidBase;
  const runner = selectAppRunner(env, {
    runsDir: join(options.dataDir, 'runs'),
    logs,
    ...(options.clock ? { clock: options.clock } : {}),
    uidFor: (projectId) => options.uidFor(projectId, uidBase),
    traversableRoots: options.traversableRoots,
    ...(options.stopGraceMs === undefined ? {} : { stopGraceMs: options.stopGraceMs }),
  });
  return new LocalReleaseDriver({
    runner,
    logs,
    stateFile: join(options.dataDir, 'supervisor.json'),
    packageDir: platformPackageDir(),
    resolveSpec: options.resolveSpec,
    onEvent: options.onEvent,
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

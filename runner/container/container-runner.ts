// The container runner (SVC_RUNNER=container): each release runs in a hardened podman container.
// Containers are not a perfect sandbox for hostile code; see docs/container-runner.md.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock, type Clock } from '../../src/core/clock.js';
import { execCommand, type Spawner } from '../../src/core/exec.js';
import { randomId, type IdGenerator } from '../../src/core/ids.js';
import { allocatePort } from '../allocate-port.js';
import type { AppRunner, AppStartSpec, RunningApp, RunningAppRecord } from '../app-runner.js';
import type { LogStore } from '../log-store.js';
import { linkedPlatformPackage } from '../linked-platform-package.js';
import { grantTree } from '../sandbox/grant-tree.js';
import { sandboxLayout } from '../sandbox-layout.js';
import { readRunOffsets, runOutputTails, spawnCapturedRun, type RunOffsets } from '../run-output.js';
import { ContainerApp, type ContainerAppDeps } from './container-app.js';
import {
  buildInspectRunningCommand,
  buildRemoveCommand,
  buildRunCommand,
  buildStopCommand,
  defaultContainerLimits,
  defaultPodmanGlobal,
  type ContainerLimits,
  type PodmanGlobal,
} from './podman-args.js';
import { projectNetworkName } from './network-args.js';
import { ProjectNetworks } from './project-networks.js';

export interface ContainerRunnerOptions {
  /** Image to run (SVC_CONTAINER_IMAGE); build the default one with `npm run build:image`. */
  image: string;
  /** Directory for per-run raw output capture (`<runsDir>/<runId>/stdout|stderr`). */
  runsDir: string;
  logs: LogStore;
  limits?: Partial<ContainerLimits>;
  podman?: Partial<PodmanGlobal>;
  clock?: Clock;
  ids?: IdGenerator;
  /** Environment podman itself runs with (PATH, XDG_RUNTIME_DIR, …; default process.env). */
  baseEnv?: Readonly<Record<string, string | undefined>>;
  /** SIGTERM → SIGKILL grace period (default 10 s). */
  stopGraceMs?: number;
  /** How often a re-adopted container is inspected (default 2 s). */
  adoptPollMs?: number;
  tailPollMs?: number;
  spawner?: Spawner;
}

/** Runs apps as hardened podman containers. */
export class ContainerRunner implements AppRunner {
  readonly kind = 'container' as const;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly limits: ContainerLimits;
  private readonly global: PodmanGlobal;
  private readonly networks: ProjectNetworks;

  constructor(private readonly options: ContainerRunnerOptions) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? randomId;
    this.limits = { ...defaultContainerLimits, ...options.limits };
    this.global = { ...defaultPodmanGlobal, ...options.podman };
    this.networks = new ProjectNetworks(this.global, options.spawner);
  }

  /** Start `podman run` in the foreground; resolves once the client was spawned (health is checked separately). */
  async start(spec: AppStartSpec): Promise<RunningApp> {
    const host = spec.host ?? '127.0.0.1';
    const port = spec.port ?? (await allocatePort(host));
    const id = this.ids('run');
    const name = containerName(spec.projectId, id);
    const platformPackageDir = linkedPlatformPackage(spec.releaseDir);
    const cmd = buildRunCommand(spec, {
      image: this.options.image,
      name,
      port,
      hostIp: host,
      network: projectNetworkName(spec.projectId),
      limits: this.limits,
      global: this.global,
      baseEnv: this.options.baseEnv ?? process.env,
      ...(platformPackageDir ? { platformPackageDir } : {}),
    });
    const runDir = join(this.options.runsDir, id);
    mkdirSync(runDir, { recursive: true, mode: 0o700 });
    // The container user must be able to write every writable mount (data, recovery repository).
    for (const mount of sandboxLayout(spec).mounts.filter((m) => m.writable)) {
      mkdirSync(mount.src, { recursive: true });
      grantToContainerUser(mount.src, this.limits.user);
    }
    await this.networks.acquire(spec.projectId, name);
    let child: Awaited<ReturnType<typeof spawnCapturedRun>>;
    try {
      // podman's conmon creates an empty file named `oom` in its working directory when the kernel
      // OOM-kills a process of the container; run it in the run's own directory, not svc's.
      child = await spawnCapturedRun({ ...cmd, cwd: runDir }, runDir, spec.releaseId, this.options.spawner);
    } catch (error) {
      await this.networks.release(spec.projectId, name).catch(() => undefined);
      throw error;
    }
    const record: RunningAppRecord = {
      kind: 'container',
      id,
      projectId: spec.projectId,
      releaseId: spec.releaseId,
      port,
      host,
      startedAt: this.clock.now(),
      containerId: name,
      runDir,
    };
    this.note(spec.projectId, spec.releaseId, `started container ${name} (${this.options.image}) on ${host}:${port}`);
    return this.releasingNetworkOnExit(new ContainerApp(record, this.appDeps(record, { stdout: 0, stderr: 0 }), { child }));
  }

  /** Re-attach to a container recorded by an earlier control plane, if it still runs. */
  async adopt(record: RunningAppRecord): Promise<RunningApp | null> {
    if (record.kind !== 'container' || !record.containerId || !record.runDir) return null;
    const app = new ContainerApp(record, this.appDeps(record, readRunOffsets(record.runDir)), { pollMs: this.options.adoptPollMs ?? 2000 });
    await app.checked();
    if (app.exited) return null;
    this.note(record.projectId, record.releaseId, `re-adopted container ${record.containerId} on ${record.host}:${record.port}`);
    this.networks.retain(record.projectId, record.containerId);
    return this.releasingNetworkOnExit(app);
  }

  /** The project's network goes when its last container here exits (project deletion stops the app). */
  private releasingNetworkOnExit(app: ContainerApp): ContainerApp {
    app.onExit(() => void this.networks.release(app.projectId, app.record().containerId!).catch(() => undefined));
    return app;
  }

  /** Remove a project's network now, e.g. after deleting a project whose containers are gone. */
  removeProjectNetwork(projectId: string): Promise<void> {
    return this.networks.remove(projectId);
  }

  /**
   * Remove leftover networks (of a control plane that died with its containers, or of deleted
   * projects): those of projects not in `liveProjectIds` (pass every existing project) that no
   * container uses. Returns their names.
   */
  removeStaleProjectNetworks(liveProjectIds: Iterable<string>): Promise<string[]> {
    return this.networks.removeStale(liveProjectIds);
  }

  private note(projectId: string, releaseId: string, line: string): void {
    try {
      this.options.logs.system(projectId, releaseId, line);
    } catch {
      // A logging failure must not orphan a started container.
    }
  }

  private appDeps(record: RunningAppRecord, offsets: RunOffsets): ContainerAppDeps {
    const runDir = record.runDir!;
    const name = record.containerId!;
    const run = async (cmd: ReturnType<typeof buildStopCommand>): Promise<string> => (await execCommand(cmd, {}, this.options.spawner)).stdout;
    return {
      clock: this.clock,
      logs: this.options.logs,
      graceMs: this.options.stopGraceMs ?? 10_000,
      tails: runOutputTails(record, offsets, {
        logs: this.options.logs,
        clock: this.clock,
        ...(this.options.tailPollMs !== undefined ? { pollMs: this.options.tailPollMs } : {}),
      }),
      stopContainer: async (graceMs) => void (await run(buildStopCommand(this.global, name, graceMs))),
      removeContainer: async () => void (await run(buildRemoveCommand(this.global, name))),
      isRunning: async () => {
        const result = await execCommand(buildInspectRunningCommand(this.global, name), {}, this.options.spawner);
        return result.exitCode === 0 && result.stdout.trim() === 'true';
      },
      cleanup: () => rmSync(runDir, { recursive: true, force: true }),
    };
  }
}

/** A podman-safe container name that identifies the project and the run. */
export function containerName(projectId: string, runId: string): string {
  const clean = (s: string): string => s.replace(/[^a-zA-Z0-9_.-]/g, '-').slice(0, 48);
  return `svc-${clean(projectId)}-${clean(runId)}`;
}

/** Give the container user ownership of a writable mount (only possible, and needed, when we are root). */
function grantToContainerUser(dir: string, user: string): void {
  if (process.getuid?.() !== 0) return;
  const [uid, gid] = user.split(':').map(Number) as [number, number];
  grantTree(dir, uid, gid);
}

// The process runner: `node <entry>` as the leader of its own process group, output captured into
// raw files that outlive the control plane, re-adoption by pid + /proc start time.
// Appropriate only when every app is trusted by the host operator: nothing isolates the apps.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock, type Clock } from '../src/core/clock.js';
import type { Spawner } from '../src/core/exec.js';
import { randomId, type IdGenerator } from '../src/core/ids.js';
import { processStartTime } from '../src/core/process-identity.js';
import { buildAppCommand } from './app-command.js';
import type { AppRunner, AppStartSpec, RunningApp, RunningAppRecord } from './app-runner.js';
import { allocatePort } from './allocate-port.js';
import type { LogStore } from './log-store.js';
import { noteSafely, processAppDeps } from './process-app-deps.js';
import { readRunOffsets, spawnCapturedRun, type RunOffsets } from './run-output.js';
import { ProcessApp } from './process-app.js';

export interface ProcessRunnerOptions {
  /** Directory for per-run raw output capture (`<runsDir>/<runId>/stdout|stderr`). */
  runsDir: string;
  logs: LogStore;
  clock?: Clock;
  ids?: IdGenerator;
  /** Node binary for apps (default: the control plane's own). */
  nodePath?: string;
  /** Environment the few inherited variables (PATH, LANG, …) come from (default process.env). */
  baseEnv?: Readonly<Record<string, string | undefined>>;
  /** SIGTERM → SIGKILL grace period (default 10 s). */
  stopGraceMs?: number;
  /** How often a re-adopted process (not our child) is checked for liveness (default 500 ms). */
  adoptPollMs?: number;
  /** How often raw output is turned into log entries (default 200 ms). */
  tailPollMs?: number;
  spawner?: Spawner;
}

/** Runs apps as local processes. */
export class ProcessRunner implements AppRunner {
  readonly kind = 'process' as const;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;

  constructor(private readonly options: ProcessRunnerOptions) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? randomId;
  }

  /** Spawn the release; resolves once the process exists (or throws SVC_APP_START_FAILED). */
  async start(spec: AppStartSpec): Promise<RunningApp> {
    const host = spec.host ?? '127.0.0.1';
    const port = spec.port ?? (await allocatePort(host));
    const cmd = buildAppCommand(spec, { nodePath: this.options.nodePath ?? process.execPath, port, host, baseEnv: this.options.baseEnv ?? process.env });
    const id = this.ids('run');
    const runDir = join(this.options.runsDir, id);
    mkdirSync(runDir, { recursive: true, mode: 0o700 });
    mkdirSync(spec.dataDir, { recursive: true });
    const child = await spawnCapturedRun(cmd, runDir, spec.releaseId, this.options.spawner);
    const pid = child.pid!;
    const record: RunningAppRecord = {
      kind: 'process',
      id,
      projectId: spec.projectId,
      releaseId: spec.releaseId,
      port,
      host,
      startedAt: this.clock.now(),
      pid,
      processStartTime: processStartTime(pid),
      runDir,
    };
    this.note(spec.projectId, spec.releaseId, `started ${spec.entry} (pid ${pid}) on ${host}:${port}`);
    return new ProcessApp(record, this.appDeps(record, { stdout: 0, stderr: 0 }), { child });
  }

  /** Re-attach to a process recorded by an earlier control plane, if that same process still runs. */
  async adopt(record: RunningAppRecord): Promise<RunningApp | null> {
    if (record.kind !== 'process' || record.pid === undefined || !record.runDir) return null;
    const app = new ProcessApp(record, this.appDeps(record, readRunOffsets(record.runDir)), { pollMs: this.options.adoptPollMs ?? 500 });
    if (app.exited) return null;
    this.note(record.projectId, record.releaseId, `re-adopted pid ${record.pid} on ${record.host}:${record.port}`);
    return app;
  }

  private note(projectId: string, releaseId: string, line: string): void {
    noteSafely(this.options.logs, projectId, releaseId, line);
  }

  private appDeps(record: RunningAppRecord, offsets: RunOffsets): ConstructorParameters<typeof ProcessApp>[1] {
    return processAppDeps(record, offsets, { ...this.options, clock: this.clock });
  }
}

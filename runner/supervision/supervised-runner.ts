// The controller side of supervision: an AppRunner whose apps each run beneath their own supervisor
// process (spawned detached, IPC = control connection). The controller renews every supervisor's lease;
// if it dies or hangs, the supervisors stop their runtimes on their own.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { systemClock, type Clock } from '../../src/core/clock.js';
import type { ErrorCode } from '../../src/core/error-codes/index.js';
import { SvcError } from '../../src/core/errors.js';
import { randomId, type IdGenerator } from '../../src/core/ids.js';
import type { AppRunner, AppStartSpec, RunningApp, RunningAppRecord } from '../app-runner.js';
import { fencePath } from './fence-file.js';
import { SupervisedApp } from './supervised-app.js';
import { supervisorMessageSchema, type ControlMessage, type RunnerConfig } from './supervisor-protocol.js';

export interface SupervisedRunnerOptions {
  /** The runner each supervisor builds (plain data). */
  runner: RunnerConfig;
  /** Root of the fence files (`<fencesDir>/<projectId>/<runId>.fence.json`). */
  fencesDir: string;
  /** This controller's lease holder id (unique per controller process). */
  holder: string;
  /** Lease length (default 30 s); renewed every `renewMs` (default a third of it). */
  leaseMs?: number;
  renewMs?: number;
  clock?: Clock;
  ids?: IdGenerator;
  /** How long a supervisor may take to report the app started (default 120 s: image start, slow disks). */
  startTimeoutMs?: number;
  /** The uid a project's sandboxed apps run under (a root node only); sent with every sandbox start. */
  uidFor?: (projectId: string) => number;
}

/** The command that starts a supervisor: the compiled entry, or the TypeScript source through tsx. */
export function supervisorEntryArgs(): string[] {
  const here = fileURLToPath(import.meta.url);
  const ts = here.endsWith('.ts');
  const entry = join(dirname(here), ts ? 'supervisor-main.ts' : 'supervisor-main.js');
  return ts ? ['--import', 'tsx', entry] : [entry];
}

/** What the runners inside a supervisor read from the environment (apps and podman get less still); never tokens. */
const supervisorEnvNames = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'XDG_RUNTIME_DIR', 'TMPDIR'] as const;

/** The supervisor's environment: only the allow-listed variables of the controller's. */
export function supervisorEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of supervisorEnvNames) if (env[name] !== undefined) out[name] = env[name]!;
  return out;
}

/** Sandbox refusals the operator must act on keep their code; any other supervisor code is one start failure. */
const PASSED_THROUGH = new Set<string>(['SVC_SANDBOX_UNAVAILABLE', 'SVC_SANDBOX_START_FAILED', 'SVC_SANDBOX_CONFIG'] satisfies ErrorCode[]);

/** The error a controller raises for a supervisor's `failed` report (pure). */
export function supervisorStartFailure(code: string, message: string): SvcError {
  if (PASSED_THROUGH.has(code)) return new SvcError(code as ErrorCode, message);
  // Other codes stay in the message (and the supervisor's log); callers see one start-failure code.
  return new SvcError('SVC_APP_START_FAILED', `${code}: ${message}`);
}

/** Runs every app beneath its own supervisor process. */
export class SupervisedRunner implements AppRunner {
  readonly kind: RunnerConfig['kind'];
  readonly holder: string;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly leaseMs: number;
  private readonly live = new Set<SupervisedApp>();
  /** Supervisors spawned but not yet reporting started: their boot and the app's start may outlast one lease. */
  private readonly starting = new Set<ChildProcess>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: SupervisedRunnerOptions) {
    this.kind = options.runner.kind;
    this.holder = options.holder;
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? randomId;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.timer = setInterval(() => this.renew(), options.renewMs ?? Math.max(100, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
  }

  /** Lease length of this controller. */
  get lease(): number {
    return this.leaseMs;
  }

  /** Spawn a supervisor, hand it the spec over IPC, resolve once it reports the app started. */
  async start(spec: AppStartSpec): Promise<RunningApp> {
    // Before any process exists: a failed uid allocation leaves nothing behind.
    const runner = this.runnerFor(spec.projectId);
    const runId = this.ids('run');
    const path = fencePath(this.options.fencesDir, spec.projectId, runId);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const errFd = openSync(join(dirname(path), 'supervisors.log'), 'a', 0o600);
    let child: ChildProcess;
    try {
      // Detached: the supervisor must outlive a killed controller (and its process group) to clean up.
      child = spawn(process.execPath, supervisorEntryArgs(), {
        detached: true,
        stdio: ['ignore', 'ignore', errFd, 'ipc'],
        env: supervisorEnv(process.env),
        serialization: 'json',
      });
    } finally {
      closeSync(errFd);
    }
    child.unref();
    const message: ControlMessage = {
      type: 'start',
      runId,
      fencePath: path,
      lease: { holder: this.holder, expiresAt: this.clock.now() + this.leaseMs },
      leaseCheckMs: Math.max(10, Math.min(1000, Math.floor(this.leaseMs / 10))),
      runner,
      spec: { ...spec, env: { ...spec.env }, secrets: { ...spec.secrets }, ...(spec.platformEnv ? { platformEnv: { ...spec.platformEnv } } : {}) },
    };
    const record = await new Promise<RunningAppRecord>((resolve, reject) => {
      const timeout = setTimeout(
        () => fail(new SvcError('SVC_APP_START_FAILED', `Supervisor did not report ${spec.releaseId} started`)),
        this.options.startTimeoutMs ?? 120_000,
      );
      const cleanup = (): void => {
        clearTimeout(timeout);
        this.starting.delete(child);
        child.off('message', onMessage);
        child.off('exit', onExit);
        child.off('error', fail);
      };
      const fail = (error: Error): void => {
        cleanup();
        // The supervisor cleans up and removes its fence when control is lost.
        if (child.connected) child.disconnect();
        reject(
          error instanceof SvcError ? error : new SvcError('SVC_APP_START_FAILED', `Could not start ${spec.releaseId}: ${error.message}`, { cause: error }),
        );
      };
      const onMessage = (raw: unknown): void => {
        const parsed = supervisorMessageSchema.safeParse(raw);
        if (!parsed.success) return;
        if (parsed.data.type === 'started') {
          cleanup();
          resolve(parsed.data.record);
        } else if (parsed.data.type === 'failed') {
          fail(supervisorStartFailure(parsed.data.code, parsed.data.message));
        }
      };
      const onExit = (code: number | null): void => fail(new SvcError('SVC_APP_START_FAILED', `Supervisor exited (${code}) before ${spec.releaseId} started`));
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.once('error', fail);
      child.send(message);
      this.starting.add(child);
    });
    const app = new SupervisedApp(record, child, this.clock, this.options.runner.stopGraceMs ?? 10_000, path);
    this.live.add(app);
    app.onExit(() => this.live.delete(app));
    return app;
  }

  /** Supervised apps never outlive their controller, so there is nothing to re-adopt. */
  async adopt(): Promise<RunningApp | null> {
    return null;
  }

  /** Supervisors of this controller that still run. */
  running(): SupervisedApp[] {
    return [...this.live];
  }

  /** Stop renewing (shutdown); apps still running stop when their lease expires or control is lost. */
  close(): void {
    clearInterval(this.timer);
  }

  /** The runner config of one start: a sandbox gets the project's uid, allocated before anything runs. */
  private runnerFor(projectId: string): RunnerConfig {
    const runner = this.options.runner;
    if (runner.kind !== 'sandbox' || !this.options.uidFor) return runner;
    return { ...runner, uid: this.options.uidFor(projectId) };
  }

  private renew(): void {
    const expiresAt = this.clock.now() + this.leaseMs;
    for (const app of this.live) app.renew(expiresAt);
    // The supervisor queues these until it supervises, so its first look sees a current lease.
    for (const child of this.starting) if (child.connected) child.send({ type: 'renew', expiresAt } satisfies ControlMessage, () => undefined);
  }
}

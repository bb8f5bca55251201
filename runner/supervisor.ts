// Keeps the active release of each project running: restart on crash with backoff, durable state
// so a restarted control plane re-adopts (or restarts) every active release.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { atomicWriteFile } from '../src/core/atomic-write.js';
import { systemClock, type Clock } from '../src/core/clock.js';
import { isSvcError } from '../src/core/errors.js';
import type { AppExit, AppRunner, AppStartSpec, RunningApp, RunningAppRecord } from './app-runner.js';
import { defaultBackoff, nextRestart, type BackoffPolicy } from './restart-backoff.js';

/** What the supervisor reports (the caller logs and audits these). */
export type SupervisorEvent =
  | { type: 'adopted' | 'started'; projectId: string; releaseId: string; pid?: number; port: number }
  | { type: 'crashed'; projectId: string; releaseId: string; exit: AppExit; uptimeMs: number; restartInMs: number; streak: number }
  | { type: 'restart-failed'; projectId: string; releaseId: string; error: string; restartInMs: number };

export interface SupervisorOptions {
  runner: AppRunner;
  /** JSON file with the supervised release and app record of every project (written atomically). */
  stateFile: string;
  /** Builds a fresh start spec (with current decrypted secrets) for every start and restart. */
  resolveSpec: (projectId: string, releaseId: string) => Promise<AppStartSpec>;
  clock?: Clock;
  backoff?: BackoffPolicy;
  onEvent?: (event: SupervisorEvent) => void;
}

/** Live status of one supervised project. */
export interface SupervisedStatus {
  releaseId: string;
  state: 'running' | 'restarting';
  pid: number | null;
  port: number | null;
  crashStreak: number;
}

const stateSchema = z.object({
  version: z.literal(1),
  projects: z.record(
    z.string(),
    z.object({ releaseId: z.string(), record: z.custom<RunningAppRecord>((v) => typeof v === 'object' && v !== null).nullable() }),
  ),
});

interface Entry {
  releaseId: string;
  app: RunningApp | null;
  streak: number;
  timer: NodeJS.Timeout | null;
  unsubscribe: (() => void) | null;
}

/** Supervises one active app per project through an AppRunner. */
export class Supervisor {
  private readonly entries = new Map<string, Entry>();
  private readonly clock: Clock;
  private readonly backoff: BackoffPolicy;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly options: SupervisorOptions) {
    this.clock = options.clock ?? systemClock;
    this.backoff = options.backoff ?? defaultBackoff;
  }

  /** Control-plane start: re-adopt every recorded app that still runs, start the others. */
  async recover(): Promise<void> {
    const saved = await this.load();
    for (const [projectId, { releaseId, record }] of Object.entries(saved.projects)) {
      const entry: Entry = { releaseId, app: null, streak: 0, timer: null, unsubscribe: null };
      this.entries.set(projectId, entry);
      const app = record ? await this.options.runner.adopt(record) : null;
      if (app) {
        this.watch(projectId, entry, app);
        this.emit({ type: 'adopted', projectId, releaseId, pid: app.pid, port: app.port });
      } else {
        await this.launch(projectId, entry, record?.port);
      }
    }
    await this.persistHint();
  }

  /** Take over an app that was started (and passed health) as the active release of its project. */
  async supervise(app: RunningApp): Promise<void> {
    const previous = this.entries.get(app.projectId);
    if (previous?.app && previous.app !== app) await this.stop(app.projectId);
    else if (previous) this.forget(previous);
    const entry: Entry = { releaseId: app.releaseId, app: null, streak: 0, timer: null, unsubscribe: null };
    this.entries.set(app.projectId, entry);
    this.watch(app.projectId, entry, app);
    await this.persistHint();
  }

  /** Start a release of a project and supervise it (restarting the prior release, rollback). */
  async start(projectId: string, releaseId: string): Promise<RunningApp> {
    const spec = await this.options.resolveSpec(projectId, releaseId);
    const app = await this.options.runner.start(spec);
    this.emit({ type: 'started', projectId, releaseId, pid: app.pid, port: app.port });
    await this.supervise(app);
    return app;
  }

  /** Stop a project's app (step 5 of the release transaction, project deletion) and stop supervising it. */
  async stop(projectId: string, graceMs?: number): Promise<AppExit | null> {
    const entry = this.entries.get(projectId);
    if (!entry) return null;
    this.entries.delete(projectId);
    this.forget(entry);
    const exit = entry.app ? await entry.app.stop(graceMs === undefined ? {} : { graceMs }) : null;
    await this.persistHint();
    return exit;
  }

  /** The running app of a project, if any (the ingress routes to its host and port). */
  current(projectId: string): RunningApp | null {
    const app = this.entries.get(projectId)?.app ?? null;
    return app && !app.exited ? app : null;
  }

  /** Status of a supervised project, or null when none is supervised. */
  status(projectId: string): SupervisedStatus | null {
    const entry = this.entries.get(projectId);
    if (!entry) return null;
    const app = entry.app && !entry.app.exited ? entry.app : null;
    return { releaseId: entry.releaseId, state: app ? 'running' : 'restarting', pid: app?.pid ?? null, port: app?.port ?? null, crashStreak: entry.streak };
  }

  /** Control-plane shutdown: persist, stop watching, leave apps running for re-adoption. */
  async detachAll(): Promise<void> {
    await this.persistHint();
    for (const entry of this.entries.values()) {
      this.forget(entry);
      entry.app?.detach();
    }
    this.entries.clear();
  }

  /** Stop every supervised app (full shutdown). */
  async stopAll(graceMs?: number): Promise<void> {
    await Promise.all([...this.entries.keys()].map((id) => this.stop(id, graceMs)));
  }

  private watch(projectId: string, entry: Entry, app: RunningApp): void {
    entry.app = app;
    const startedAt = this.clock.now();
    entry.unsubscribe = app.onExit((exit) => {
      if (this.entries.get(projectId) !== entry || entry.app !== app) return;
      const uptimeMs = exit.at - startedAt;
      const { delayMs, streak } = nextRestart(this.backoff, entry.streak, uptimeMs);
      entry.streak = streak;
      this.emit({ type: 'crashed', projectId, releaseId: entry.releaseId, exit, uptimeMs, restartInMs: delayMs, streak });
      this.schedule(projectId, entry, delayMs, app.port);
      this.persist().catch(() => undefined); // retried by the next write; the record is only a hint
    });
  }

  private schedule(projectId: string, entry: Entry, delayMs: number, port: number | undefined): void {
    entry.timer = setTimeout(() => {
      entry.timer = null;
      if (this.entries.get(projectId) === entry) void this.launch(projectId, entry, port).then(() => this.persist().catch(() => undefined));
    }, delayMs);
  }

  /** Start the entry's release (same port when known, so the ingress target stays stable). */
  private async launch(projectId: string, entry: Entry, port: number | undefined): Promise<void> {
    try {
      const spec = await this.options.resolveSpec(projectId, entry.releaseId);
      const app = await this.options.runner.start(port === undefined ? spec : { ...spec, port });
      if (this.entries.get(projectId) !== entry) {
        await app.stop();
        return;
      }
      this.watch(projectId, entry, app);
      this.emit({ type: 'started', projectId, releaseId: entry.releaseId, pid: app.pid, port: app.port });
    } catch (error) {
      const { delayMs, streak } = nextRestart(this.backoff, entry.streak, 0);
      entry.streak = streak;
      entry.app = null;
      this.emit({ type: 'restart-failed', projectId, releaseId: entry.releaseId, error: (error as Error).message, restartInMs: delayMs });
      // A fixed port may be what fails: let the next attempt allocate a fresh one.
      this.schedule(projectId, entry, delayMs, undefined);
    }
  }

  private forget(entry: Entry): void {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = null;
    entry.unsubscribe?.();
    entry.unsubscribe = null;
  }

  private emit(event: SupervisorEvent): void {
    this.options.onEvent?.(event);
  }

  private async load(): Promise<z.infer<typeof stateSchema>> {
    let text: string;
    try {
      text = await readFile(this.options.stateFile, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, projects: {} };
      throw error;
    }
    return stateSchema.parse(JSON.parse(text));
  }

  /**
   * persist(), except that a full disk is not an error: the state file is only a hint for the next
   * start and every later change writes it again, so a full disk must not keep the control plane from
   * starting, deploying what fits, or shutting down.
   */
  private async persistHint(): Promise<void> {
    await this.persist().catch((error: unknown) => {
      if (!isSvcError(error, 'SVC_DISK_FULL')) throw error;
    });
  }

  /** Serialised atomic write of the current state (records only: never specs or secrets). */
  private persist(): Promise<void> {
    const projects: Record<string, { releaseId: string; record: RunningAppRecord | null }> = {};
    for (const [id, entry] of this.entries) {
      projects[id] = { releaseId: entry.releaseId, record: entry.app && !entry.app.exited ? entry.app.record() : null };
    }
    const text = JSON.stringify({ version: 1, projects }, null, 2);
    const write = this.writing.catch(() => undefined).then(() => atomicWriteFile(this.options.stateFile, text, { mode: 0o600, mkdirs: true }));
    this.writing = write;
    return write;
  }
}

// App output into `svc logs`: each project service (and canary) the driver runs has its log stream
// followed into the project's LogStore, one entry per line with the stream, the release of the task
// that wrote it and the engine's time, as the local runners write them. Swarm keeps the output on the
// nodes; a follow that ends (engine restart, service re-created) resumes after the newest line it
// stored, and a new follow (control-plane restart) after the newest output in the log, so no line is
// written twice.
import type { LogEntry, LogStore } from '../log-store.js';
import type { EngineClient } from './engine-client.js';
import { SWARM_LABELS } from './swarm-names.js';
import { admitResumed, advanceCursor, cursorFromEntries, resumeFrom, sinceOf, type LogCursor, type ServiceLogRecord } from './service-log-records.js';

/** Lines a follow with nothing to resume from starts with (a service that predates svc's log). */
const FIRST_TAIL = 1000;
const RETRY_MS = 1000;

export interface ServiceLogFollowDeps {
  engine: () => Promise<EngineClient>;
  logs: LogStore;
  /** Pause before following again after a stream ended (default 1 s). */
  retryMs?: number;
}

interface Follow {
  projectId: string;
  serviceName: string;
  abort: AbortController;
  done: Promise<void>;
  /** Release of each task seen (from its labels). */
  releases: Map<string, string>;
  lastRelease: string;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The follows of the services the driver runs, by service name. */
export class ServiceLogFollows {
  private readonly follows = new Map<string, Follow>();

  constructor(private readonly deps: ServiceLogFollowDeps) {}

  /** Follow a project's service into its log from now on (again a no-op while it is followed). */
  follow(projectId: string, serviceName: string): void {
    if (this.follows.has(serviceName)) return;
    const follow: Follow = { projectId, serviceName, abort: new AbortController(), done: Promise.resolve(), releases: new Map(), lastRelease: '-' };
    this.follows.set(serviceName, follow);
    follow.done = this.run(follow);
  }

  following(serviceName: string): boolean {
    return this.follows.has(serviceName);
  }

  /** Stop following a service; resolves once nothing more is written for it. */
  async unfollow(serviceName: string): Promise<void> {
    const follow = this.follows.get(serviceName);
    if (!follow) return;
    this.follows.delete(serviceName);
    follow.abort.abort();
    await follow.done;
  }

  async unfollowProject(projectId: string): Promise<void> {
    await Promise.all([...this.follows.values()].filter((f) => f.projectId === projectId).map((f) => this.unfollow(f.serviceName)));
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.follows.keys()].map((name) => this.unfollow(name)));
  }

  /** The newest app output the project log holds. */
  private storedCursor(projectId: string): LogCursor | null {
    const entries = (['stdout', 'stderr'] as const).flatMap((stream) => this.deps.logs.read(projectId, { stream, limit: 50 }));
    return cursorFromEntries(entries.sort((a, b) => a.time - b.time));
  }

  private async run(follow: Follow): Promise<void> {
    const { signal } = follow.abort;
    let cursor: LogCursor | null = null;
    let started = false;
    while (!signal.aborted) {
      try {
        if (!started) cursor = this.storedCursor(follow.projectId);
        started = true;
        const engine = await this.deps.engine();
        const resume = cursor ? resumeFrom(cursor) : null;
        const lines = engine.serviceLogLines(follow.serviceName, { follow: true, signal, ...(cursor ? { since: sinceOf(cursor) } : { tail: FIRST_TAIL }) });
        for await (const batch of lines) {
          const fresh = resume ? batch.filter((record) => admitResumed(resume, record)) : batch;
          if (fresh.length === 0 || signal.aborted) continue;
          const entries = await this.entries(engine, follow, fresh);
          if (signal.aborted) break;
          this.deps.logs.append(follow.projectId, entries);
          for (const record of fresh) cursor = advanceCursor(cursor, record);
        }
      } catch {
        // The service is gone for now or the engine did not answer: follow again after a pause.
      }
      await pause(this.deps.retryMs ?? RETRY_MS, signal);
    }
  }

  private async entries(engine: EngineClient, follow: Follow, records: readonly ServiceLogRecord[]): Promise<LogEntry[]> {
    if (records.some((r) => r.taskId !== null && !follow.releases.has(r.taskId))) {
      const tasks = await engine.listTasks({ service: follow.serviceName }).catch(() => []);
      for (const task of tasks) {
        const release = task.Spec.ContainerSpec?.Labels?.[SWARM_LABELS.release];
        if (release) follow.releases.set(task.ID, release);
      }
    }
    return records.map((record) => {
      const release = (record.taskId === null ? undefined : follow.releases.get(record.taskId)) ?? follow.lastRelease;
      follow.lastRelease = release;
      return { time: record.time, stream: record.stream, releaseId: release, line: record.line };
    });
  }
}

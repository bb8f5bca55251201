import { randomBytes } from 'node:crypto';
import { hostname as osHostname } from 'node:os';
import { link, mkdir, open, readFile, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { fsyncDirectory } from './atomic-write.js';
import { systemClock, type Clock } from './clock.js';
import { ioFailure } from './disk-full.js';
import { SvcError } from './errors.js';
import { checkProcess, processStartTime } from './process-identity.js';

/** What a lock file records about its holder (also what `SVC_PROJECT_LOCKED` reports). */
export const lockHolderSchema = z.object({
  pid: z.number().int().positive(),
  processStartTime: z.string().nullable(),
  hostname: z.string(),
  operation: z.string(),
  acquiredAt: z.number(),
  token: z.string().min(16),
});
export type LockHolder = z.infer<typeof lockHolderSchema>;

/** Why a lock was judged stale: holder pid gone, pid reused by another process, or an unreadable file. */
export type StaleReason = 'dead' | 'pid-reused' | 'unreadable';

/** Reported to `onStaleLockRecovered` so the caller can audit the recovery. */
export interface StaleLockInfo {
  projectId: string;
  reason: StaleReason;
  /** The dead holder (null when the file was unreadable). */
  holder: LockHolder | null;
  /** The operation that is taking the lock now. */
  recoveredBy: string;
}

export interface ProjectLocksOptions {
  /** Directory holding `<projectId>.lock` files (under the control plane's data directory). */
  dir: string;
  /** Called for every stale lock that was removed; required so recovery is never silent. */
  onStaleLockRecovered: (info: StaleLockInfo) => void;
  clock?: Clock;
  /** How often a waiter re-checks a lock held by another process (default 50 ms). */
  pollIntervalMs?: number;
}

export interface AcquireOptions {
  /** How long to wait for the holder to finish; 0 (default) fails at once with SVC_PROJECT_LOCKED. */
  waitMs?: number;
  signal?: AbortSignal;
}

/** A held project lock; release it exactly once (the token is verified against the file). */
export interface ProjectLockHandle {
  readonly projectId: string;
  readonly holder: LockHolder;
  release(): Promise<void>;
}

interface Waiter {
  wake: () => void;
}

const safeId = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/**
 * Durable per-project locks shared by deploy, rollback, release cleanup, backups and project deletion.
 * A lock is a file made visible atomically (hard link of a fsynced temp file: O_EXCL semantics, never
 * partially written). A lock whose holder process is gone is recovered and reported, never ignored.
 */
export class ProjectLocks {
  private readonly queues = new Map<string, Waiter[]>();
  private readonly clock: Clock;
  private readonly pollMs: number;

  constructor(private readonly options: ProjectLocksOptions) {
    this.clock = options.clock ?? systemClock;
    this.pollMs = options.pollIntervalMs ?? 50;
  }

  /** Path of the lock file of a project. */
  lockPath(projectId: string): string {
    if (!safeId.test(projectId)) throw new SvcError('SVC_VALIDATION', `Invalid project id for a lock: ${JSON.stringify(projectId)}`);
    return join(this.options.dir, `${projectId}.lock`);
  }

  /** The current holder, or null when the project is not locked (stale holders are reported as they are). */
  async holder(projectId: string): Promise<LockHolder | null> {
    const read = await this.readLock(projectId);
    return read.kind === 'held' ? read.holder : null;
  }

  /**
   * Take the lock for `operation`. In-process callers queue in arrival order; a holder in another
   * process is polled until `waitMs` passes, then SVC_PROJECT_LOCKED names the holder's operation.
   */
  async acquire(projectId: string, operation: string, options: AcquireOptions = {}): Promise<ProjectLockHandle> {
    const path = this.lockPath(projectId);
    // Join the queue synchronously, before any await, so arrival order is queue order.
    const queue = this.queues.get(projectId) ?? [];
    this.queues.set(projectId, queue);
    const waiter: Waiter = { wake: () => undefined };
    queue.push(waiter);
    const deadline = this.clock.now() + (options.waitMs ?? 0);
    try {
      await mkdir(this.options.dir, { recursive: true }).catch((error: unknown) => {
        throw ioFailure(error, `creating the lock directory ${this.options.dir}`);
      });
      for (;;) {
        options.signal?.throwIfAborted();
        let holder: LockHolder | null = null;
        if (queue[0] === waiter) {
          const attempt = await this.tryCreate(projectId, path, operation);
          if (attempt.acquired) return this.handle(projectId, path, attempt.holder);
          holder = attempt.holder;
        } else {
          holder = await this.holder(projectId);
        }
        const remaining = deadline - this.clock.now();
        if (remaining <= 0) throw lockedError(projectId, holder);
        await this.sleep(waiter, Math.min(this.pollMs, remaining), options.signal);
      }
    } finally {
      queue.splice(queue.indexOf(waiter), 1);
      if (queue.length === 0) this.queues.delete(projectId);
      else queue[0]?.wake();
    }
  }

  /** Run `fn` while holding the project lock; the lock is released however `fn` ends. */
  async withLock<T>(projectId: string, operation: string, fn: (handle: ProjectLockHandle) => Promise<T>, options?: AcquireOptions): Promise<T> {
    const handle = await this.acquire(projectId, operation, options);
    try {
      return await fn(handle);
    } finally {
      await handle.release();
    }
  }

  private handle(projectId: string, path: string, holder: LockHolder): ProjectLockHandle {
    let released = false;
    return {
      projectId,
      holder,
      release: async () => {
        if (released) throw new SvcError('SVC_LOCK_NOT_HELD', `Lock of ${projectId} was already released`);
        released = true;
        const current = await this.readLock(projectId);
        if (current.kind !== 'held' || current.holder.token !== holder.token) {
          throw new SvcError('SVC_LOCK_NOT_HELD', `Lock of ${projectId} is no longer held by this ${holder.operation}`);
        }
        await unlink(path);
        await fsyncDirectory(this.options.dir);
        this.queues.get(projectId)?.[0]?.wake();
      },
    };
  }

  /** One attempt: create the lock, or recover it if stale and retry once, else report the holder. */
  private async tryCreate(
    projectId: string,
    path: string,
    operation: string,
  ): Promise<{ acquired: true; holder: LockHolder } | { acquired: false; holder: LockHolder | null }> {
    const mine: LockHolder = {
      pid: process.pid,
      processStartTime: processStartTime(process.pid),
      hostname: osHostname(),
      operation,
      acquiredAt: this.clock.now(),
      token: randomBytes(16).toString('hex'),
    };
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await this.linkNew(path, mine)) return { acquired: true, holder: mine };
      const current = await this.readLock(projectId);
      if (current.kind === 'free') continue;
      const reason = current.kind === 'unreadable' ? 'unreadable' : staleReason(current.holder);
      if (reason === null) return { acquired: false, holder: current.kind === 'held' ? current.holder : null };
      await this.recover(projectId, path, current.kind === 'held' ? current.holder : null, current.raw, reason, operation);
    }
    return { acquired: false, holder: await this.holder(projectId) };
  }

  /**
   * Make the lock file appear atomically with its full content; false if it already exists. The temp
   * file is removed however this ends (a full disk fails the write, and must not leave it behind).
   */
  private async linkNew(path: string, holder: LockHolder): Promise<boolean> {
    const temp = `${path}.${holder.token}.tmp`;
    try {
      const file = await open(temp, 'wx', 0o600);
      try {
        await file.writeFile(JSON.stringify(holder));
        await file.sync();
      } finally {
        await file.close();
      }
      await link(temp, path);
      await fsyncDirectory(this.options.dir);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw ioFailure(error, `taking the project lock ${path}`);
    } finally {
      await rm(temp, { force: true });
    }
  }

  /**
   * Remove a stale lock under a per-project recovery guard, but only if the file still holds exactly
   * what was judged stale (so a fresh lock taken meanwhile by someone else is never removed).
   */
  private async recover(projectId: string, path: string, stale: LockHolder | null, raw: string, reason: StaleReason, operation: string): Promise<void> {
    const guard = `${path}.recovery`;
    const guardHolder = {
      pid: process.pid,
      processStartTime: processStartTime(process.pid),
      hostname: osHostname(),
      operation: 'lock-recovery',
      acquiredAt: this.clock.now(),
      token: randomBytes(16).toString('hex'),
    };
    if (!(await this.linkNew(guard, guardHolder))) {
      const text = await readFile(guard, 'utf8').catch(() => null);
      const parsed = text === null ? null : lockHolderSchema.safeParse(safeJson(text));
      // A guard left by a recoverer that died mid-recovery is removed; the next attempt retries.
      if (text !== null && (!parsed?.success || staleReason(parsed.data) !== null)) await rm(guard, { force: true });
      return;
    }
    try {
      const again = await readFile(path, 'utf8').catch(() => null);
      if (again !== raw) return;
      await unlink(path);
      await fsyncDirectory(this.options.dir);
    } finally {
      await rm(guard, { force: true });
    }
    this.options.onStaleLockRecovered({ projectId, reason, holder: stale, recoveredBy: operation });
  }

  private async readLock(
    projectId: string,
  ): Promise<{ kind: 'free' } | { kind: 'held'; holder: LockHolder; raw: string } | { kind: 'unreadable'; raw: string }> {
    let raw: string;
    try {
      raw = await readFile(this.lockPath(projectId), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'free' };
      throw error;
    }
    const parsed = lockHolderSchema.safeParse(safeJson(raw));
    return parsed.success ? { kind: 'held', holder: parsed.data, raw } : { kind: 'unreadable', raw };
  }

  private sleep(waiter: Waiter, ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        waiter.wake = () => undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiter.wake = done;
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

/**
 * Whether a recorded holder is stale, judged on this host: its pid is gone, or the pid now belongs to
 * a process with another start time. Holders on another host are never judged stale from here.
 */
export function staleReason(holder: LockHolder, host: string = osHostname()): StaleReason | null {
  if (holder.hostname !== host) return null;
  const liveness = checkProcess(holder.pid, holder.processStartTime);
  if (liveness === 'dead') return 'dead';
  if (liveness === 'reused') return 'pid-reused';
  return null;
}

function lockedError(projectId: string, holder: LockHolder | null): SvcError {
  const what = holder
    ? `${holder.operation} (pid ${holder.pid} on ${holder.hostname}, since ${new Date(holder.acquiredAt).toISOString()})`
    : 'another queued operation';
  return new SvcError('SVC_PROJECT_LOCKED', `Project ${projectId} is locked by ${what}`, {
    details: { projectId, operation: holder?.operation ?? null, pid: holder?.pid ?? null, acquiredAt: holder?.acquiredAt ?? null },
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

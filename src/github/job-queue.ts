// The durable work queue of the GitHub integration: webhook deliveries and GitHub syncs are rows in
// the control database, so a restart loses nothing (a job that was running simply runs again; every
// handler is idempotent). Jobs of one lane never run concurrently; failures back off exponentially.
import type { FeatureContext } from '../core/feature-context.js';
import { retryDelayMs, type RetryPolicy } from '../core/retry-policy.js';

type Ctx = Pick<FeatureContext, 'db' | 'clock' | 'logger'>;

export interface JobRow {
  id: number;
  kind: string;
  lane: string;
  payload: string;
  attempts: number;
}

export type JobHandler = (payload: unknown, job: JobRow) => Promise<void>;

export interface QueueOptions {
  /** Parallel jobs across lanes (default 4). */
  concurrency?: number;
  /** Attempts before a job is parked as dead (default 8). */
  maxAttempts?: number;
  /** First retry delay; doubles per attempt up to 10 minutes (default 2 s). */
  backoffMs?: number;
  /** Poll interval for delayed jobs (default 500 ms). */
  pollMs?: number;
}

const commandEvents = new Set(['issue_comment', 'check_run', 'check_suite']);

/** Done jobs and delivery ids are kept this long (GitHub redeliveries come within days). */
export const QUEUE_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** Insert a job unless a pending job with the same dedupe key exists. Synchronous (call inside transactions). */
export function enqueueJob(
  ctx: Pick<FeatureContext, 'db' | 'clock'>,
  kind: string,
  payload: unknown,
  options: { lane: string; dedupeKey?: string; delayMs?: number },
): boolean {
  const now = ctx.clock.now();
  const result = ctx.db
    .prepare(
      `INSERT INTO github_jobs (kind, lane, dedupe_key, payload, state, run_at, created_at) VALUES (?, ?, ?, ?, 'pending', ?, ?)
       ON CONFLICT (dedupe_key) DO NOTHING`,
    )
    .run(kind, options.lane, options.dedupeKey ?? null, JSON.stringify(payload), now + (options.delayMs ?? 0), now);
  return result.changes === 1;
}

/** Record a webhook delivery once (by X-GitHub-Delivery) and queue it, in one transaction. */
export function enqueueDelivery(ctx: Pick<FeatureContext, 'db' | 'clock'>, delivery: { id: string; name: string; payload: unknown }): 'queued' | 'duplicate' {
  return ctx.db
    .transaction(() => {
      const inserted = ctx.db
        .prepare('INSERT INTO github_deliveries (delivery_id, event, received_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING')
        .run(delivery.id, delivery.name, ctx.clock.now());
      if (inserted.changes === 0) return 'duplicate' as const;
      // Commands may run a rollback (seconds), and opening a preview may copy a database: each gets its own
      // lane so pushes keep flowing in order (pull request events stay in order among themselves).
      const lane = commandEvents.has(delivery.name) ? 'deliveries:commands' : delivery.name === 'pull_request' ? 'deliveries:pull_requests' : 'deliveries';
      enqueueJob(ctx, 'delivery', delivery, { lane });
      return 'queued' as const;
    })
    .immediate();
}

/** The worker: claims due jobs, runs their handlers, retries with backoff. */
export class JobQueue {
  private readonly running = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private readonly opts: Required<QueueOptions>;
  private readonly retry: RetryPolicy;

  constructor(
    private readonly ctx: Ctx,
    private readonly handlers: Record<string, JobHandler>,
    options: QueueOptions = {},
  ) {
    this.opts = { concurrency: 4, maxAttempts: 8, backoffMs: 2_000, pollMs: 500, ...options };
    // svc's retry policy without jitter (one worker per lane; the schedule is stored in run_at). GitHub's
    // Retry-After (secondary rate limits) is honoured up to the same 10 minutes.
    this.retry = { baseMs: this.opts.backoffMs, capMs: 600_000, jitter: 0 };
  }

  /** Start polling (pending jobs from before a restart run first). */
  start(): void {
    this.stopped = false;
    this.prune();
    this.wake();
  }

  /** Look for due jobs now (called after enqueueing). */
  wake(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), 0);
  }

  /** Stop claiming and wait for running jobs (they are retried after a restart if cut short). */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.running.values()]);
  }

  /** Run due jobs until none is due or `maxJobs` ran (tests with a manual clock). */
  async runUntilIdle(maxJobs = 1000): Promise<number> {
    let ran = 0;
    while (ran < maxJobs) {
      const batch = this.claim();
      if (batch.length === 0) {
        if (this.running.size === 0) break;
        await Promise.race(this.running.values());
        continue;
      }
      ran += batch.length;
      await Promise.allSettled(batch);
    }
    return ran;
  }

  /** Jobs that are neither done nor dead (for status and tests). */
  pendingCount(): number {
    return (this.ctx.db.prepare("SELECT COUNT(*) AS n FROM github_jobs WHERE state = 'pending'").get() as { n: number }).n;
  }

  private tick(): void {
    this.timer = null;
    if (this.stopped) return;
    try {
      for (const run of this.claim()) void run.then(() => this.wake());
    } catch (error) {
      this.ctx.logger.error({ err: error }, 'github queue: claiming failed');
    }
    if (!this.stopped && !this.timer) this.timer = setTimeout(() => this.tick(), this.opts.pollMs);
  }

  private claim(): Promise<void>[] {
    const free = this.opts.concurrency - this.running.size;
    if (free <= 0) return [];
    const due = this.ctx.db
      .prepare("SELECT id, kind, lane, payload, attempts FROM github_jobs WHERE state = 'pending' AND run_at <= ? ORDER BY id LIMIT 100")
      .all(this.ctx.clock.now()) as JobRow[];
    const started: Promise<void>[] = [];
    for (const job of due) {
      if (started.length >= free) break;
      if (this.running.has(job.lane)) continue;
      // Clear the dedupe key: a change made while this job runs queues a fresh job behind it.
      this.ctx.db.prepare('UPDATE github_jobs SET dedupe_key = NULL WHERE id = ?').run(job.id);
      const run = this.execute(job).finally(() => this.running.delete(job.lane));
      this.running.set(job.lane, run);
      started.push(run);
    }
    return started;
  }

  private async execute(job: JobRow): Promise<void> {
    const handler = this.handlers[job.kind];
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      await handler(JSON.parse(job.payload) as unknown, job);
      this.ctx.db.prepare("UPDATE github_jobs SET state = 'done', finished_at = ?, last_error = NULL WHERE id = ?").run(this.ctx.clock.now(), job.id);
    } catch (error) {
      const attempts = job.attempts + 1;
      const dead = attempts >= this.opts.maxAttempts;
      const delay = retryDelayMs(this.retry, { attempt: attempts, random: 1, retryAfter: retryAfterOf(error), now: this.ctx.clock.now() });
      const message = errorText(error);
      this.ctx.db
        .prepare('UPDATE github_jobs SET attempts = ?, state = ?, run_at = ?, last_error = ?, finished_at = ? WHERE id = ?')
        .run(attempts, dead ? 'dead' : 'pending', this.ctx.clock.now() + delay, message, dead ? this.ctx.clock.now() : null, job.id);
      this.ctx.logger[dead ? 'error' : 'warn'](
        { jobId: job.id, kind: job.kind, attempts, err: message },
        dead ? 'github job failed for good' : 'github job failed; will retry',
      );
    }
  }

  private prune(): void {
    const before = this.ctx.clock.now() - QUEUE_RETENTION_MS;
    this.ctx.db.prepare("DELETE FROM github_jobs WHERE state != 'pending' AND finished_at < ?").run(before);
    this.ctx.db.prepare('DELETE FROM github_deliveries WHERE received_at < ?').run(before);
  }
}

/** The Retry-After of a failed GitHub call (an Octokit RequestError carries the response headers). */
function retryAfterOf(error: unknown): string | undefined {
  const value = (error as { response?: { headers?: Record<string, unknown> } } | null)?.response?.headers?.['retry-after'];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

function errorText(error: unknown): string {
  if (error instanceof AggregateError) return error.errors.map(errorText).join('; ').slice(0, 2000);
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 2000);
  return String(error).slice(0, 2000);
}

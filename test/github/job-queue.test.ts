// The durable job queue on a real SQLite file: dedupe, lanes run one job at a time, exponential
// backoff, dead-lettering after the last attempt.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/clock.js';
import { openControlDb, type ControlDb } from '../../src/core/control-db.js';
import { applyMigrations } from '../../src/core/db-migrations.js';
import { createLogger } from '../../src/core/logger.js';
import { enqueueDelivery, enqueueJob, JobQueue } from '../../src/github/job-queue.js';
import { githubMigrations } from '../../src/github/migrations.js';

let dir: string;
let db: ControlDb;
const clock = manualClock(1_000_000);
const logger = createLogger({ level: 'silent' });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-jobs-'));
  db = openControlDb(join(dir, 'control.db'));
  applyMigrations(db, githubMigrations, () => clock.now());
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const ctx = () => ({ db, clock, logger });
const states = () => db.prepare('SELECT kind, state, attempts FROM github_jobs ORDER BY id').all();

describe('JobQueue', () => {
  it('deduplicates deliveries and pending jobs with the same key', () => {
    expect(enqueueDelivery(ctx(), { id: 'd1', name: 'push', payload: {} })).toBe('queued');
    expect(enqueueDelivery(ctx(), { id: 'd1', name: 'push', payload: {} })).toBe('duplicate');
    expect(enqueueJob(ctx(), 'sync', {}, { lane: 'a', dedupeKey: 'k' })).toBe(true);
    expect(enqueueJob(ctx(), 'sync', {}, { lane: 'a', dedupeKey: 'k' })).toBe(false);
    expect(states()).toHaveLength(2);
  });

  it('runs one job per lane at a time, in order', async () => {
    const log: string[] = [];
    const queue = new JobQueue(ctx(), {
      work: async (payload) => {
        const { lane, n } = payload as { lane: string; n: number };
        log.push(`start ${lane}${n}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
        log.push(`end ${lane}${n}`);
      },
    });
    for (const n of [1, 2]) for (const lane of ['a', 'b']) enqueueJob(ctx(), 'work', { lane, n }, { lane });
    await queue.runUntilIdle();
    expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2'));
    expect(log.indexOf('end b1')).toBeLessThan(log.indexOf('start b2'));
    expect(log.indexOf('start b1')).toBeLessThan(log.indexOf('end a1')); // lanes overlap
  });

  it('backs off exponentially and parks a job as dead after the last attempt', async () => {
    let calls = 0;
    const queue = new JobQueue(
      ctx(),
      {
        fail: async () => {
          calls++;
          throw new Error('nope');
        },
      },
      { maxAttempts: 3, backoffMs: 1000 },
    );
    enqueueJob(ctx(), 'fail', {}, { lane: 'x' });
    await queue.runUntilIdle();
    expect(states()).toEqual([{ kind: 'fail', state: 'pending', attempts: 1 }]);
    clock.advance(999);
    expect(await queue.runUntilIdle()).toBe(0);
    clock.advance(1);
    await queue.runUntilIdle();
    clock.advance(2000);
    await queue.runUntilIdle();
    expect(states()).toEqual([{ kind: 'fail', state: 'dead', attempts: 3 }]);
    expect(calls).toBe(3);
    expect((db.prepare('SELECT last_error FROM github_jobs').get() as { last_error: string }).last_error).toContain('nope');
  });
});

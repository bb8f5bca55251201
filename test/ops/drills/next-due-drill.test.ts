import { describe, expect, it } from 'vitest';
import { DRILL_SETUP_RETRY_MS, nextDueDrill } from '../../../src/ops/drills/next-due-drill.js';

const HOUR = 3_600_000;
const NOW = 1_800_000_000_000;
const opts = { intervalMs: 24 * HOUR };

describe('nextDueDrill', () => {
  it('returns null without candidates or without retained backups', () => {
    expect(nextDueDrill([], [], NOW, opts)).toBeNull();
    expect(nextDueDrill([{ projectId: 'a', newestBackupAt: null }], [], NOW, opts)).toBeNull();
  });

  it('picks exactly one drill per pass: never-drilled first, then the most overdue, ties by id', () => {
    const projects = [
      { projectId: 'c', newestBackupAt: NOW - HOUR },
      { projectId: 'b', newestBackupAt: NOW - HOUR },
      { projectId: 'a', newestBackupAt: NOW - HOUR },
    ];
    const receipts = [
      { projectId: 'a', startedAt: NOW - 30 * HOUR, finishedAt: NOW - 30 * HOUR + 1000, outcome: 'passed' as const },
      { projectId: 'b', startedAt: NOW - 40 * HOUR, finishedAt: NOW - 40 * HOUR + 1000, outcome: 'failed' as const },
    ];
    expect(nextDueDrill(projects, receipts, NOW, opts)).toEqual({ projectId: 'c', dueAt: Number.NEGATIVE_INFINITY });
    const drilledC = [...receipts, { projectId: 'c', startedAt: NOW - HOUR, finishedAt: NOW - HOUR, outcome: 'passed' as const }];
    expect(nextDueDrill(projects, drilledC, NOW, opts)).toEqual({ projectId: 'b', dueAt: NOW - 16 * HOUR });
    // Two never-drilled projects: the smaller id.
    expect(nextDueDrill(projects, [], NOW, opts)?.projectId).toBe('a');
  });

  it('uses only the newest receipt of a project and waits for the interval', () => {
    const projects = [{ projectId: 'a', newestBackupAt: NOW - HOUR }];
    const receipts = [
      { projectId: 'a', startedAt: NOW - 2 * HOUR, finishedAt: NOW - 2 * HOUR, outcome: 'passed' as const },
      { projectId: 'a', startedAt: NOW - 50 * HOUR, finishedAt: NOW - 50 * HOUR, outcome: 'passed' as const },
    ];
    expect(nextDueDrill(projects, receipts, NOW, opts)).toBeNull();
    expect(nextDueDrill(projects, receipts, NOW + 22 * HOUR, opts)).toEqual({ projectId: 'a', dueAt: NOW + 22 * HOUR });
  });

  it('retries a failed setup after five minutes, not after the interval', () => {
    const projects = [{ projectId: 'a', newestBackupAt: NOW - HOUR }];
    const receipts = [{ projectId: 'a', startedAt: NOW - 60_000, finishedAt: NOW, outcome: 'setup-failed' as const }];
    expect(nextDueDrill(projects, receipts, NOW + DRILL_SETUP_RETRY_MS - 1, opts)).toBeNull();
    expect(nextDueDrill(projects, receipts, NOW + DRILL_SETUP_RETRY_MS, opts)).toEqual({ projectId: 'a', dueAt: NOW + DRILL_SETUP_RETRY_MS });
    // A failed drill (boot or checks) waits for the full interval.
    const failed = [{ ...receipts[0]!, outcome: 'failed' as const }];
    expect(nextDueDrill(projects, failed, NOW + DRILL_SETUP_RETRY_MS, opts)).toBeNull();
  });
});

// What a process-backed RunningApp (plain or sandboxed) needs from its runner: log tails that resume at
// the persisted offsets, the stop grace, and removal of its run directory once it is over.
import { rmSync } from 'node:fs';
import type { Clock } from '../src/core/clock.js';
import type { RunningAppRecord } from './app-runner.js';
import type { LogStore } from './log-store.js';
import type { ProcessAppDeps } from './process-app.js';
import { runOutputTails, type RunOffsets } from './run-output.js';

export interface ProcessAppDepsOptions {
  clock: Clock;
  logs: LogStore;
  stopGraceMs?: number;
  tailPollMs?: number;
}

/** The dependencies of one run's app, reading its output from the recorded run directory. */
export function processAppDeps(record: RunningAppRecord, offsets: RunOffsets, options: ProcessAppDepsOptions): ProcessAppDeps {
  const runDir = record.runDir!;
  return {
    clock: options.clock,
    logs: options.logs,
    graceMs: options.stopGraceMs ?? 10_000,
    tails: runOutputTails(record, offsets, {
      logs: options.logs,
      clock: options.clock,
      ...(options.tailPollMs !== undefined ? { pollMs: options.tailPollMs } : {}),
    }),
    cleanup: () => rmSync(runDir, { recursive: true, force: true }),
  };
}

/** A platform line in the project log; a logging failure (disk full) must never orphan a started app. */
export function noteSafely(logs: LogStore, projectId: string, releaseId: string, line: string): void {
  try {
    logs.system(projectId, releaseId, line);
  } catch {
    // Disk full or similar.
  }
}

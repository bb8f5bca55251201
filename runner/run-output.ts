// The captured output of one app run (`<runDir>/stdout`, `<runDir>/stderr`): both runners tail it into
// the project log and persist how far they read (`offsets.json`), so a re-adopting runner resumes there.
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFileSync } from '../src/core/atomic-write.js';
import type { Clock } from '../src/core/clock.js';
import type { Command } from '../src/core/command.js';
import { SvcError } from '../src/core/errors.js';
import { nodeSpawner, type Spawner } from '../src/core/exec.js';
import type { RunningAppRecord } from './app-runner.js';
import type { LogStore } from './log-store.js';
import { OutputTail } from './output-tail.js';

/** Bytes of each captured stream already moved into the project log. */
export interface RunOffsets {
  stdout: number;
  stderr: number;
}

/** The persisted read offsets of a run (zero when missing or unreadable). */
export function readRunOffsets(runDir: string): RunOffsets {
  try {
    const parsed = JSON.parse(readFileSync(join(runDir, 'offsets.json'), 'utf8')) as Partial<RunOffsets>;
    return { stdout: Number(parsed.stdout) || 0, stderr: Number(parsed.stderr) || 0 };
  } catch {
    return { stdout: 0, stderr: 0 };
  }
}

/** Tails of a run's stdout and stderr into the project log, persisting offsets as they advance. */
export function runOutputTails(record: RunningAppRecord, offsets: RunOffsets, deps: { logs: LogStore; clock: Clock; pollMs?: number }): OutputTail[] {
  const runDir = record.runDir!;
  const current = { ...offsets };
  const tail = (stream: 'stdout' | 'stderr'): OutputTail =>
    new OutputTail({
      path: join(runDir, stream),
      offset: offsets[stream],
      pollMs: deps.pollMs ?? 200,
      onLines: (lines) => {
        const time = deps.clock.now();
        deps.logs.append(
          record.projectId,
          lines.map((line) => ({ time, stream, releaseId: record.releaseId, line })),
        );
      },
      onOffset: (offset) => {
        current[stream] = offset;
        try {
          atomicWriteFileSync(join(runDir, 'offsets.json'), JSON.stringify(current));
        } catch {
          // The run directory is gone (the run ended and was cleaned up): nothing left to resume.
        }
      },
    });
  return [tail('stdout'), tail('stderr')];
}

/**
 * Start a run detached, its stdout/stderr appended to `<runDir>/stdout|stderr`; resolves once spawned.
 * A failed start removes the run directory and is SVC_APP_START_FAILED.
 */
export async function spawnCapturedRun(cmd: Command, runDir: string, releaseId: string, spawner: Spawner = nodeSpawner): Promise<ChildProcess> {
  const out = openSync(join(runDir, 'stdout'), 'a', 0o600);
  const err = openSync(join(runDir, 'stderr'), 'a', 0o600);
  try {
    const child = spawner(cmd, { ...(cmd.cwd ? { cwd: cmd.cwd } : {}), env: { ...cmd.env }, detached: true, stdio: ['ignore', out, err] });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    child.unref();
    return child;
  } catch (error) {
    rmSync(runDir, { recursive: true, force: true });
    throw new SvcError('SVC_APP_START_FAILED', `Could not start ${releaseId}: ${(error as Error).message}`, { cause: error });
  } finally {
    closeSync(out);
    closeSync(err);
  }
}

import { existsSync, readFileSync } from 'node:fs';

/**
 * Start time of a process in clock ticks since boot (field 22 of /proc/<pid>/stat), as a string.
 * Together with the pid it identifies a process across pid reuse. Null when unknown (no /proc, gone).
 */
export function processStartTime(pid: number): string | null {
  try {
    return parseProcStatStartTime(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** Parse the start-time field of a /proc/<pid>/stat line; the command name may contain spaces and ')'. */
export function parseProcStatStartTime(stat: string): string | null {
  const close = stat.lastIndexOf(')');
  if (close < 0) return null;
  // Fields after "(comm)" start at field 3 (state); starttime is field 22 → index 19 here.
  const fields = stat
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const value = fields[19];
  return value !== undefined && /^\d+$/.test(value) ? value : null;
}

/** Parse the one-letter state (field 3) of a /proc/<pid>/stat line, e.g. 'S', 'R', 'Z'. */
export function parseProcStatState(stat: string): string | null {
  const close = stat.lastIndexOf(')');
  return close < 0
    ? null
    : (stat
        .slice(close + 2)
        .trim()
        .split(/\s+/)[0] ?? null);
}

/**
 * Whether a process with this pid exists and is not a zombie (an exited process nobody reaped yet).
 * EPERM means it exists but belongs to someone else.
 */
export function pidExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const state = parseProcStatState(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return state !== 'Z' && state !== 'X';
  } catch {
    // Without /proc, trust kill(0); with /proc, a missing entry means the process just went away.
    return !existsSync('/proc/self/stat');
  }
}

/** Liveness of a recorded process: 'alive', 'dead' (no such pid) or 'reused' (pid now names another process). */
export type ProcessLiveness = 'alive' | 'dead' | 'reused';

/** Check a recorded (pid, start time) pair against the running system. */
export function checkProcess(pid: number, recordedStartTime: string | null): ProcessLiveness {
  if (!pidExists(pid)) return 'dead';
  if (recordedStartTime === null) return 'alive';
  const current = processStartTime(pid);
  if (current === null) return pidExists(pid) ? 'alive' : 'dead';
  return current === recordedStartTime ? 'alive' : 'reused';
}

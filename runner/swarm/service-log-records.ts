// What a service's log stream says, line by line (Engine logs read with `timestamps` and `details`):
// `<RFC 3339 nano time> com.docker.swarm.node.id=…,com.docker.swarm.service.id=…,com.docker.swarm.task.id=… <line>`.
// And where a follow resumes without writing a line twice: the engine's `since` is inclusive, so the
// lines already stored at the resume millisecond are skipped once each. Pure.
import type { LogEntry } from '../log-store.js';
import type { LogFrame } from './engine-log-frames.js';

/** One line of a task's output. */
export interface ServiceLogRecord {
  stream: 'stdout' | 'stderr';
  /** When the engine read the line (ms since epoch). */
  time: number;
  /** The task that wrote it (null when the engine did not say). */
  taskId: string | null;
  line: string;
}

const TIMESTAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;
const DETAILS = /^[A-Za-z0-9_.-]+=[^,\s]*(?:,[A-Za-z0-9_.-]+=[^,\s]*)*$/;

/** Milliseconds since epoch of an engine timestamp, or null. */
export function timestampMs(text: string): number | null {
  const match = TIMESTAMP.exec(text);
  if (!match) return null;
  const seconds = Date.parse(`${match[1]}${match[3]}`);
  if (Number.isNaN(seconds)) return null;
  return seconds + Number((match[2] ?? '').padEnd(3, '0').slice(0, 3));
}

/** The lines of one frame: its time and task taken off the front (`now` when it carries no time). */
export function parseLogFrame(frame: LogFrame, now: number): ServiceLogRecord[] {
  const text = frame.payload.toString('utf8');
  return text
    .split('\n')
    .map((line, index, all) => (index === all.length - 1 && line === '' ? null : line.replace(/\r$/, '')))
    .filter((line): line is string => line !== null)
    .map((raw) => {
      let rest = raw;
      let time = now;
      let taskId: string | null = null;
      const space = rest.indexOf(' ');
      const stamp = timestampMs(space === -1 ? rest : rest.slice(0, space));
      if (stamp !== null) {
        time = stamp;
        rest = space === -1 ? '' : rest.slice(space + 1);
        const next = rest.indexOf(' ');
        const details = next === -1 ? rest : rest.slice(0, next);
        if (details.includes('com.docker.swarm.') && DETAILS.test(details)) {
          for (const pair of details.split(',')) {
            const [key, value] = pair.split('=');
            if (key === 'com.docker.swarm.task.id' && value) taskId = decodeURIComponent(value);
          }
          rest = next === -1 ? '' : rest.slice(next + 1);
        }
      }
      return { stream: frame.stream, time, taskId, line: rest };
    });
}

/** The newest millisecond stored, and how often each line was stored at it. */
export interface LogCursor {
  ms: number;
  seen: Map<string, number>;
}

const keyOf = (entry: { stream: string; line: string }): string => `${entry.stream}\n${entry.line}`;

/** Where a follow resumes from the project log: the newest app output there (system lines are svc's own). */
export function cursorFromEntries(entries: readonly LogEntry[]): LogCursor | null {
  let cursor: LogCursor | null = null;
  for (const entry of entries) if (entry.stream !== 'system') cursor = advanceCursor(cursor, entry);
  return cursor;
}

/** The cursor after a line was stored (lines older than the cursor leave it as it is). */
export function advanceCursor(cursor: LogCursor | null, record: { stream: string; time: number; line: string }): LogCursor {
  if (!cursor || record.time > cursor.ms) return { ms: record.time, seen: new Map([[keyOf(record), 1]]) };
  if (record.time === cursor.ms) cursor.seen.set(keyOf(record), (cursor.seen.get(keyOf(record)) ?? 0) + 1);
  return cursor;
}

/** A copy to resume from: its `seen` is used up as the duplicates arrive again. */
export function resumeFrom(cursor: LogCursor): LogCursor {
  return { ms: cursor.ms, seen: new Map(cursor.seen) };
}

/** Whether a line from a resumed stream is new (false for a line stored before at the resume millisecond). */
export function admitResumed(resume: LogCursor, record: { stream: string; time: number; line: string }): boolean {
  if (record.time > resume.ms) return true;
  if (record.time < resume.ms) return false;
  const left = resume.seen.get(keyOf(record)) ?? 0;
  if (left === 0) return true;
  resume.seen.set(keyOf(record), left - 1);
  return false;
}

/** The engine's `since` for a cursor: seconds and nanoseconds (inclusive). */
export function sinceOf(cursor: LogCursor): string {
  const seconds = Math.floor(cursor.ms / 1000);
  return `${seconds}.${String((cursor.ms - seconds * 1000) * 1_000_000).padStart(9, '0')}`;
}

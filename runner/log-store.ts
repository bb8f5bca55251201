// Per-project app logs: JSON lines in `<dir>/<projectId>/app.log`, rotated by size into
// app.log.1 … app.log.<keep> (oldest dropped). Readable with filters and followable live.
import { EventEmitter, on } from 'node:events';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { systemClock, type Clock } from '../src/core/clock.js';
import { SvcError } from '../src/core/errors.js';

/** One captured line. `system` lines are written by the platform (start, exit, restart). */
export const logEntrySchema = z.object({
  time: z.number(),
  stream: z.enum(['stdout', 'stderr', 'system']),
  releaseId: z.string(),
  line: z.string(),
});
export type LogEntry = z.infer<typeof logEntrySchema>;

/** Filters for reading and following. */
export interface LogFilter {
  /** Only entries at or after this time (ms since epoch). */
  since?: number;
  stream?: LogEntry['stream'];
  releaseId?: string;
  /** Newest N matching entries (default 1000, max 10000), returned oldest first. */
  limit?: number;
}

export interface LogStoreOptions {
  dir: string;
  /** Rotate when the current file would exceed this many bytes (default 5 MiB). */
  maxFileBytes?: number;
  /** Rotated files kept besides the current one (default 4). */
  keepFiles?: number;
  /** Longer lines are cut to this many characters (default 16 KiB). */
  maxLineChars?: number;
  clock?: Clock;
}

const safeId = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** Append-only, size-rotated JSON-lines logs per project with filtered reads and live follow. */
export class LogStore {
  private readonly events = new EventEmitter();
  private readonly maxBytes: number;
  private readonly keep: number;
  private readonly maxLine: number;
  readonly clock: Clock;

  constructor(private readonly options: LogStoreOptions) {
    this.maxBytes = options.maxFileBytes ?? 5 * 1024 * 1024;
    this.keep = options.keepFiles ?? 4;
    this.maxLine = options.maxLineChars ?? 16 * 1024;
    this.clock = options.clock ?? systemClock;
    this.events.setMaxListeners(0);
  }

  /** Append entries (one write per call), rotating first when the file would grow past the limit. */
  append(projectId: string, entries: readonly LogEntry[]): void {
    if (entries.length === 0) return;
    const dir = this.projectDir(projectId);
    mkdirSync(dir, { recursive: true });
    const clean = entries.map((e) => ({
      time: e.time,
      stream: e.stream,
      releaseId: e.releaseId,
      line: e.line.length > this.maxLine ? `${e.line.slice(0, this.maxLine)}…` : e.line,
    }));
    const text = clean.map((e) => JSON.stringify(e)).join('\n') + '\n';
    const current = join(dir, 'app.log');
    const size = existsSync(current) ? statSync(current).size : 0;
    if (size > 0 && size + Buffer.byteLength(text) > this.maxBytes) this.rotate(dir);
    appendFileSync(current, text, { mode: 0o600 });
    for (const entry of clean) this.events.emit(projectId, entry);
  }

  /** Convenience for one platform-written line. */
  system(projectId: string, releaseId: string, line: string): void {
    this.append(projectId, [{ time: this.clock.now(), stream: 'system', releaseId, line }]);
  }

  /** The newest `limit` entries matching the filter, oldest first, across rotated files. */
  read(projectId: string, filter: LogFilter = {}): LogEntry[] {
    const dir = this.projectDir(projectId);
    const limit = Math.min(Math.max(filter.limit ?? 1000, 1), 10_000);
    const out: LogEntry[] = [];
    // Newest file first; stop once enough entries were found.
    for (const name of ['app.log', ...Array.from({ length: this.keep }, (_, i) => `app.log.${i + 1}`)]) {
      const path = join(dir, name);
      if (!existsSync(path)) continue;
      const lines = readFileSync(path, 'utf8').split('\n');
      for (let i = lines.length - 1; i >= 0 && out.length < limit; i--) {
        const entry = parseLine(lines[i]!);
        if (entry && matches(entry, filter)) out.push(entry);
      }
      if (out.length >= limit) break;
    }
    return out.reverse();
  }

  /** Entries appended from now on that match the filter, until `signal` aborts. */
  async *follow(projectId: string, filter: Omit<LogFilter, 'limit'>, signal: AbortSignal): AsyncGenerator<LogEntry> {
    this.projectDir(projectId);
    try {
      for await (const [entry] of on(this.events, projectId, { signal }) as AsyncIterable<[LogEntry]>) {
        if (matches(entry, filter)) yield entry;
      }
    } catch (error) {
      if ((error as Error).name !== 'AbortError') throw error;
    }
  }

  /** Remove every log of a project (project deletion). */
  remove(projectId: string): void {
    rmSync(this.projectDir(projectId), { recursive: true, force: true });
  }

  private rotate(dir: string): void {
    rmSync(join(dir, `app.log.${this.keep}`), { force: true });
    for (let i = this.keep - 1; i >= 1; i--) {
      const from = join(dir, `app.log.${i}`);
      if (existsSync(from)) renameSync(from, join(dir, `app.log.${i + 1}`));
    }
    if (this.keep >= 1) renameSync(join(dir, 'app.log'), join(dir, 'app.log.1'));
    else rmSync(join(dir, 'app.log'), { force: true });
  }

  private projectDir(projectId: string): string {
    if (!safeId.test(projectId)) throw new SvcError('SVC_VALIDATION', `Invalid project id for logs: ${JSON.stringify(projectId)}`);
    return join(this.options.dir, projectId);
  }
}

function parseLine(line: string): LogEntry | null {
  if (!line) return null;
  try {
    const parsed = logEntrySchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function matches(entry: LogEntry, filter: LogFilter): boolean {
  if (filter.since !== undefined && entry.time < filter.since) return false;
  if (filter.stream !== undefined && entry.stream !== filter.stream) return false;
  if (filter.releaseId !== undefined && entry.releaseId !== filter.releaseId) return false;
  return true;
}

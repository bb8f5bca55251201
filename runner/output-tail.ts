// Apps write stdout/stderr straight into raw capture files (not pipes), so they keep running and
// logging when the control plane restarts. An OutputTail follows one such file, turns complete
// lines into log entries, and truncates the raw file once it is consumed and large.
import { closeSync, fstatSync, ftruncateSync, openSync, readSync } from 'node:fs';

export interface OutputTailOptions {
  path: string;
  /** Called with complete lines (without the newline), in order. */
  onLines: (lines: string[]) => void;
  /** Called after the read position moved (to persist it for re-adoption). */
  onOffset?: (offset: number) => void;
  /** Byte position to resume from (default 0). */
  offset?: number;
  /** Poll interval (default 200 ms). */
  pollMs?: number;
  /** Truncate the raw file when fully consumed and larger than this (default 4 MiB). */
  maxRawBytes?: number;
  /** A line longer than this many bytes is emitted in pieces (default 16 KiB). */
  maxLineBytes?: number;
}

/** Follows one raw capture file by polling; `stop()` drains what is left. */
export class OutputTail {
  private position: number;
  private pending: Buffer = Buffer.alloc(0);
  private timer: NodeJS.Timeout | null = null;
  private readonly maxLine: number;

  constructor(private readonly options: OutputTailOptions) {
    this.position = options.offset ?? 0;
    this.maxLine = options.maxLineBytes ?? 16 * 1024;
  }

  /** Current read position in the raw file. */
  get offset(): number {
    return this.position;
  }

  /** Start polling. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.safeDrain(), this.options.pollMs ?? 200);
    this.timer.unref();
  }

  /** Read everything written so far and emit complete lines. Safe to call at any time. */
  drain(): void {
    let fd: number;
    try {
      fd = openSync(this.options.path, 'r+');
    } catch {
      return;
    }
    try {
      const size = fstatSync(fd).size;
      if (size < this.position) this.position = 0; // truncated by someone else: start over
      const start = this.position;
      const chunk = Buffer.alloc(64 * 1024);
      for (;;) {
        const read = readSync(fd, chunk, 0, chunk.length, this.position);
        if (read <= 0) break;
        this.position += read;
        this.consume(chunk.subarray(0, read));
      }
      if (this.pending.length === 0 && this.position >= (this.options.maxRawBytes ?? 4 * 1024 * 1024)) {
        // Everything was consumed. Writers use O_APPEND, so they continue at the new end (0).
        ftruncateSync(fd, 0);
        this.position = 0;
      }
      if (this.position !== start) this.options.onOffset?.(this.position);
    } finally {
      closeSync(fd);
    }
  }

  /** Stop polling, drain, and emit a trailing partial line if any. Never throws. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.safeDrain();
    if (this.pending.length > 0) {
      const rest = this.pending.toString('utf8');
      this.pending = Buffer.alloc(0);
      try {
        this.options.onLines([rest]);
      } catch {
        // The log store failed (disk full?): the line is dropped rather than crashing the platform.
      }
    }
  }

  // Timer-driven reads must never throw out of a callback; the next poll retries from `position`.
  private safeDrain(): void {
    try {
      this.drain();
    } catch {
      // Retried on the next poll.
    }
  }

  private consume(bytes: Buffer): void {
    let data = this.pending.length > 0 ? Buffer.concat([this.pending, bytes]) : Buffer.from(bytes);
    const lines: string[] = [];
    let nl: number;
    while ((nl = data.indexOf(0x0a)) >= 0) {
      lines.push(data.subarray(0, nl).toString('utf8').replace(/\r$/, ''));
      data = data.subarray(nl + 1);
    }
    while (data.length > this.maxLine) {
      lines.push(data.subarray(0, this.maxLine).toString('utf8'));
      data = data.subarray(this.maxLine);
    }
    this.pending = Buffer.from(data);
    if (lines.length > 0) this.options.onLines(lines);
  }
}

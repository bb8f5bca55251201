// The Engine multiplexes a non-TTY log stream into frames: one byte stream type (0 stdin, 1 stdout,
// 2 stderr), three zero bytes, a big-endian uint32 length, then the payload. Pure.

/** One frame's stream and payload. */
export interface LogFrame {
  stream: 'stdout' | 'stderr';
  payload: Buffer;
}

const HEADER = 8;

/** A frame header at `offset`: its stream and payload size, or null when the bytes are not framed. */
function header(buffer: Buffer, offset: number): { stream: LogFrame['stream']; size: number } | null {
  const type = buffer[offset];
  if (type === undefined || type > 2 || buffer[offset + 1] !== 0 || buffer[offset + 2] !== 0 || buffer[offset + 3] !== 0) return null;
  return { stream: type === 2 ? 'stderr' : 'stdout', size: buffer.readUInt32BE(offset + 4) };
}

/** stdout and stderr payloads in the order they were written; a buffer that is not framed (a TTY) as-is. */
export function demultiplexLogs(buffer: Buffer): string {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const head = offset + HEADER <= buffer.length ? header(buffer, offset) : null;
    if (!head || offset + HEADER + head.size > buffer.length) return buffer.toString('utf8');
    parts.push(buffer.subarray(offset + HEADER, offset + HEADER + head.size));
    offset += HEADER + head.size;
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Frames out of a live stream that arrives in chunks cut anywhere: a frame is handed out once all
 * of it arrived. Bytes that are not framed (a TTY) come out as stdout, as they arrive.
 */
export class LogFrameReader {
  private pending: Buffer = Buffer.alloc(0);
  private raw = false;

  push(chunk: Buffer): LogFrame[] {
    if (this.raw) return chunk.length > 0 ? [{ stream: 'stdout', payload: chunk }] : [];
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const frames: LogFrame[] = [];
    let offset = 0;
    while (this.pending.length - offset >= HEADER) {
      const head = header(this.pending, offset);
      if (!head) {
        this.raw = true;
        frames.push({ stream: 'stdout', payload: this.pending.subarray(offset) });
        offset = this.pending.length;
        break;
      }
      if (this.pending.length - offset < HEADER + head.size) break;
      frames.push({ stream: head.stream, payload: this.pending.subarray(offset + HEADER, offset + HEADER + head.size) });
      offset += HEADER + head.size;
    }
    this.pending = this.pending.subarray(offset);
    return frames;
  }
}

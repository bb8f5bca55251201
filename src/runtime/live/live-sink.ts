// Where a live connection's frames go: a pending buffer (until a transport claims the
// stream), a Fetch ReadableStream, or a node:http response written directly.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** A byte sink for SSE frames with a measure of unsent bytes (for slow-consumer detection). */
export interface LiveSink {
  write(frame: Buffer): void;
  /** Bytes accepted but not yet handed to the network. */
  queuedBytes(): number;
  /** Graceful end of the stream. */
  end(): void;
  /** Abrupt end (slow consumer, shutdown). */
  destroy(reason: Error): void;
}

/** Buffers frames until a transport attaches. */
export class PendingSink implements LiveSink {
  readonly frames: Buffer[] = [];
  private bytes = 0;
  ended = false;
  write(frame: Buffer): void {
    this.frames.push(frame);
    this.bytes += frame.byteLength;
  }
  queuedBytes(): number {
    return this.bytes;
  }
  end(): void {
    this.ended = true;
  }
  destroy(): void {
    this.ended = true;
    this.frames.length = 0;
    this.bytes = 0;
  }
}

/** Writes into a ReadableStream controller whose strategy counts bytes (highWaterMark = queue bound). */
export class StreamSink implements LiveSink {
  constructor(
    private readonly controller: ReadableStreamDefaultController<Uint8Array>,
    private readonly highWaterMark: number,
  ) {}
  write(frame: Buffer): void {
    this.controller.enqueue(frame);
  }
  queuedBytes(): number {
    return this.highWaterMark - (this.controller.desiredSize ?? 0);
  }
  end(): void {
    try {
      this.controller.close();
    } catch {
      // already closed or errored
    }
  }
  destroy(reason: Error): void {
    try {
      this.controller.error(reason);
    } catch {
      // already closed
    }
  }
}

/**
 * Writes straight to the socket of a node:http response sent without chunked encoding (the body ends
 * when the connection closes), so one shared Buffer goes to every subscriber with one write each.
 */
export class NodeSink implements LiveSink {
  private readonly socket: Socket;
  constructor(res: ServerResponse) {
    if (!res.socket) throw new Error('response has no socket');
    this.socket = res.socket;
  }
  write(frame: Buffer): void {
    if (!this.socket.destroyed && this.socket.writable) this.socket.write(frame);
  }
  queuedBytes(): number {
    return this.socket.writableLength;
  }
  end(): void {
    if (!this.socket.destroyed) this.socket.end();
  }
  destroy(): void {
    this.socket.destroy();
  }
}

import { LiveError } from './live-error.js';
import { PendingSink, type LiveSink } from './live-sink.js';
import { encodeErrorFrame } from './sse-frames.js';

/** One subscriber's stream: bounded queue, session revalidation, sink hand-over. */
export class LiveConnection {
  private sink: LiveSink = new PendingSink();
  closed = false;
  /** Set when the connection was dropped for falling behind. */
  droppedSlow = false;
  /** Revision of the last snapshot written (to never send an older one). */
  lastRevision = -1;
  /** Whether the last frame sent was an error (then a snapshot of the same revision is sent again). */
  afterError = false;

  constructor(
    readonly key: string,
    private readonly maxQueueBytes: number,
    private readonly revalidate: (() => boolean) | undefined,
    private readonly onClosed: (conn: LiveConnection) => void,
  ) {}

  /** True until a transport has taken the stream (see attach). */
  get pending(): boolean {
    return this.sink instanceof PendingSink;
  }

  /** Hand the stream to a transport; frames buffered so far are written first. */
  attach(sink: LiveSink): void {
    const pending = this.sink;
    if (!(pending instanceof PendingSink)) throw new Error('live connection already attached');
    this.sink = sink;
    for (const frame of pending.frames) sink.write(frame);
    if (pending.ended) sink.end();
    else this.checkQueue();
  }

  /** Write a frame, after revalidating the session; disconnect a consumer that falls behind. */
  send(frame: Buffer): void {
    if (this.closed) return;
    if (!this.stillValid()) return;
    this.sink.write(frame);
    this.checkQueue();
  }

  /** Revalidate the session; a revoked one gets a fatal error event and the stream closes. */
  stillValid(): boolean {
    if (!this.revalidate) return true;
    let ok = false;
    try {
      ok = this.revalidate();
    } catch {
      ok = false;
    }
    if (!ok) this.fail({ code: 'SVC_LIVE_SESSION_REVOKED', message: 'session revoked', fatal: true });
    return ok;
  }

  /** Send a fatal error event and end the stream. */
  fail(body: { code: string; message: string; fatal: true }): void {
    if (this.closed) return;
    this.sink.write(encodeErrorFrame(body));
    this.close();
  }

  /** End the stream gracefully. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.sink.end();
    this.onClosed(this);
  }

  /** Abort the stream (slow consumer, client gone). */
  destroy(error: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.sink.destroy(error);
    this.onClosed(this);
  }

  private checkQueue(): void {
    if (this.sink.queuedBytes() > this.maxQueueBytes) {
      this.droppedSlow = true;
      this.destroy(new LiveError('SVC_LIVE_SLOW_CONSUMER', 503));
    }
  }
}

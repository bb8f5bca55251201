import type { LiveConnection } from './live-connection.js';
import type { Dependencies } from './live-types.js';
import { encodeSnapshotFrame } from './sse-frames.js';

/** One shared execution: all subscribers of path + canonical args + partition. */
export class LiveQueryState {
  readonly subscribers = new Set<LiveConnection>();
  /** JSON of the last successful value (null before the first result or after an error). */
  valueJson: string | null = null;
  revision = -1;
  deps: Dependencies | null = null;
  /** Last error frame, sent to new subscribers while the query is failing. */
  errorFrame: Buffer | null = null;
  errorJson: string | null = null;
  /** The error of the latest run, if it failed. */
  lastError: unknown = null;
  /** Incremented per broadcast; an unfinished sliced fan-out stops when a newer one starts. */
  broadcastSeq = 0;
  dirty = false;
  running = false;
  rerun = false;
  private frame: Buffer | null = null;

  constructor(
    readonly key: string,
    readonly path: string,
    readonly args: unknown,
    readonly identity: unknown,
  ) {}

  /** Record a new value; returns the frame to broadcast, or null when the value is unchanged. */
  setValue(valueJson: string, revision: number): Buffer | null {
    const changed = valueJson !== this.valueJson;
    this.valueJson = valueJson;
    this.revision = revision;
    this.errorFrame = null;
    this.errorJson = null;
    this.frame = null;
    return changed ? this.snapshotFrame() : null;
  }

  /** The current snapshot frame, encoded once and shared by every subscriber. */
  snapshotFrame(): Buffer | null {
    if (this.valueJson === null) return null;
    this.frame ??= encodeSnapshotFrame(this.valueJson, this.revision);
    return this.frame;
  }
}

// Where the parser puts verified file contents as they are decoded, a piece at a time: in memory for
// callers that want the bytes (svc inspect, runner nodes), or on disk for the upload route, so that
// an artifact's contents never have to fit in the control plane's memory at once.
import type { ArtifactFileEntry } from './document.js';

/** Receives each file's decoded bytes in order: begin, write…, end. Calls are synchronous; see DiskSink for I/O. */
export interface ContentSink {
  /** The metadata of the next file passed every check; its content follows. */
  begin(entry: ArtifactFileEntry): void;
  /** The next decoded bytes of the current file (not yet known to match its sha256). */
  write(bytes: Buffer): void;
  /** The current file is complete: its size and sha256 matched. */
  end(entry: ArtifactFileEntry): void;
}

/** Keeps every file's content in memory, in document order. */
export class MemorySink implements ContentSink {
  /** The contents of the completed files, in document order. */
  readonly contents: Buffer[] = [];
  private parts: Buffer[] = [];

  begin(): void {
    this.parts = [];
  }

  write(bytes: Buffer): void {
    this.parts.push(bytes);
  }

  end(): void {
    this.contents.push(this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts));
    this.parts = [];
  }
}

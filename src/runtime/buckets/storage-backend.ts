// The storage seam: where object bytes live. The catalog decides visibility; a backend only stores bytes
// under opaque storage keys. Implemented by the local volume and the S3-compatible backend; one contract
// suite (test/runtime/buckets/contract-suite.ts) runs against both.
import type { Readable } from 'node:stream';

/** Provider metadata of stored bytes: size and an opaque version that changes when the bytes are rewritten. */
export interface StoredStat {
  readonly size: number;
  readonly version: string;
}

/** An abandoned staging area found by `listStaging` (swept once older than the grace period). */
export interface StagingEntry {
  readonly id: string;
  readonly state: string;
  readonly createdAt: number;
}

/** Byte storage used by the bucket manager. Every method is idempotent where it says so. */
export interface StorageBackend {
  readonly kind: 'local' | 's3';
  /** Smallest non-final chunk the backend can stage (S3 multipart parts: 5 MiB; local: 1). */
  readonly minChunkBytes: number;
  /** Open a staging area for a reservation; returns its id and serialized state (kept in the catalog). */
  createStaging(reservationId: string, storageKey: string, contentType: string): Promise<{ id: string; state: string }>;
  /**
   * Append one chunk at `offset` (the durable length so far). All or nothing: when the stream fails, nothing
   * past `offset` stays staged. Resolves once the chunk is durable, with the new state.
   */
  writeChunk(state: string, offset: number, chunk: AsyncIterable<Uint8Array>, length: number): Promise<string>;
  /** Stream staged bytes [0, length), or null when the backend cannot read staging before commit. */
  readStaging(state: string, length: number): Readable | null;
  /** Make the staged bytes the object `storageKey` (local: rename, no copy). Returns provider metadata. */
  commit(state: string, storageKey: string): Promise<StoredStat>;
  /** Drop a staging area (idempotent). */
  abortStaging(state: string): Promise<void>;
  /** Metadata of an object, null when missing. */
  stat(storageKey: string): Promise<StoredStat | null>;
  /** Stream an object's bytes, optionally a byte range [start, end] inclusive. Null when missing. */
  read(storageKey: string, range?: { start: number; end: number }): Promise<Readable | null>;
  /** Delete one object (idempotent; never a prefix or bulk delete). */
  delete(storageKey: string): Promise<void>;
  /** Staging areas that exist in the provider (for orphan sweeps); [] when the provider cannot list them. */
  listStaging(): Promise<StagingEntry[]>;
  close(): Promise<void>;
}

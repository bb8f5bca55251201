// A small cache of one-shot query results, partitioned by session: the key holds the session id, so
// one user's result is never served to another. Any new revision invalidates every entry.
import { canonicalJson } from '../canonical-json.js';

interface Entry {
  revision: number;
  json: string;
}

/** LRU of serialized query results valid for exactly one revision. */
export class QueryCache {
  private readonly entries = new Map<string, Entry>();
  private readonly capacity: number;

  constructor(capacity = 256) {
    this.capacity = capacity;
  }

  /** The cache key of a call: session partition, function path and canonical arguments. */
  static key(sessionId: string | null, path: string, args: unknown): string {
    return `${sessionId ?? '-'}\u0000${path}\u0000${canonicalJson(args)}`;
  }

  /** The cached response body if it was computed at `revision`. */
  get(key: string, revision: number): string | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.revision !== revision) return undefined;
    this.entries.set(key, entry);
    return entry.json;
  }

  set(key: string, revision: number, json: string): void {
    this.entries.delete(key);
    this.entries.set(key, { revision, json });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  get size(): number {
    return this.entries.size;
  }
}

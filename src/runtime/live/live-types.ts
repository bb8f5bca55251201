// What the live hub consumes. The shapes come from the runtime's seam (../engine.ts); the hub
// depends only on LiveQuerySource so unit tests can drive it with a scripted source.

import type { CommitEvent, Dependencies, QueryRun } from '../engine.js';

export type { CommitEvent, Dependencies, QueryRun };

/** What the hub needs from the runtime: run a query, learn about commits. */
export interface LiveQuerySource {
  /** Current persisted revision. */
  revision(): number;
  /** Subscribe to commits; returns an unsubscribe function. */
  onCommit(listener: (event: CommitEvent) => void): () => void;
  /** Run a query function for an identity (opaque to the hub). Sync or async. */
  runQuery(path: string, args: unknown, identity: unknown): QueryRun | Promise<QueryRun>;
}

/** Everything the hub needs to open one live stream; resolved by the Fetch handler. */
export interface LiveOpenRequest {
  /** Function path, e.g. "tasks:list". */
  path: string;
  /** Already-parsed (and ideally validated) arguments. */
  args: unknown;
  /** Passed through to runQuery. */
  identity?: unknown;
  /**
   * Cache partition: subscribers share one execution only within a partition.
   * Must fully determine what the query may see (e.g. the user or session id); "" when anonymous.
   */
  partition?: string;
  /** Revalidates the session before each push; returning false closes the stream. */
  revalidate?: () => boolean;
  /** The client's `Last-Event-ID`, if any (a full snapshot is always sent regardless). */
  lastEventId?: string | null;
  /** Aborts the stream (e.g. the request's signal). */
  signal?: AbortSignal;
}

/** Public error shape carried by `event: error`. */
export interface LiveErrorBody {
  code: string;
  message: string;
  /** A fatal error closes the stream; the client must not reconnect automatically. */
  fatal: boolean;
}

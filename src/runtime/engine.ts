// The seam between the runtime core (database, functions, HTTP) and the live layer (SSE, client).
// Everything here is a type or a tiny pure helper; implementations live in database/, functions/, http/.
import type BetterSqlite3 from 'better-sqlite3';

/** Who is calling: resolved from the session cookie by the auth layer; null when anonymous. */
export interface Identity {
  /** Stable user id; owned tables are scoped by it (`_ownerId`). */
  readonly userId: string;
  /** Opaque, non-secret id of the session; partition caches and shared executions by it. */
  readonly sessionId: string;
  readonly email: string;
}

/**
 * What a query read. `documents` holds document ids (an id names its table: `<table>_<random>`);
 * `tables` holds tables read through the query builder (any write to them reruns the query).
 */
export interface Dependencies {
  readonly tables: ReadonlySet<string>;
  readonly documents: ReadonlySet<string>;
}

/** Emitted once per change-producing transaction, after COMMIT, never inside the transaction. */
export interface CommitEvent {
  /** Persisted global revision after this commit (count of change-producing transactions). */
  readonly revision: number;
  /** Tables written by the transaction. */
  readonly tables: ReadonlySet<string>;
  /** Ids of documents inserted, patched, replaced or deleted. */
  readonly documents: ReadonlySet<string>;
  /**
   * Set when the change was made by another process on the same file. `tables`/`documents` are exact
   * when the change log still held the revision; when `unknown` is true treat everything as changed.
   */
  readonly external?: boolean;
  readonly unknown?: boolean;
}

/** Result of running a query: its JSON value, what it read, and the revision of the snapshot it saw. */
export interface QueryRun<T = unknown> {
  readonly value: T;
  readonly dependencies: Dependencies;
  readonly revision: number;
}

/** Result of a committed mutation: its JSON value and the revision after commit (unchanged if it wrote nothing). */
export interface MutationRun<T = unknown> {
  readonly value: T;
  readonly revision: number;
}

/** Information handed to before-commit hooks: what the transaction wrote. */
export interface CommitInfo {
  readonly revision: number;
  readonly tables: ReadonlySet<string>;
  readonly documents: ReadonlySet<string>;
}

/** The opened database as seen by the function executor and the live layer. */
export interface RuntimeDatabase {
  /** Last known persisted revision (own commits immediately; other processes' after a poll). */
  revision(): number;
  /** Subscribe to commits. Listeners run asynchronously after COMMIT (setImmediate), off the mutation's path. */
  onCommit(listener: (event: CommitEvent) => void): () => void;
  /** Hook run INSIDE the write transaction just before COMMIT; a throw rolls everything back. */
  onBeforeCommit(hook: (tx: BetterSqlite3.Database, info: CommitInfo) => void): () => void;
  /** Check PRAGMA data_version; emits CommitEvents (external: true) for commits by other processes. */
  pollExternalChanges(): void;
  /** The underlying connection (for auth tables, diagnostics and hooks). */
  readonly sqlite: BetterSqlite3.Database;
  /** Whether the database is file-backed (cross-process polling is on) or in memory. */
  readonly path: string | null;
  close(): void;
}

/** Kind of a server function. */
export type FunctionKind = 'query' | 'mutation';

/** One entry of GET /__svc/manifest. */
export interface FunctionManifestEntry {
  readonly path: string;
  readonly kind: FunctionKind;
  readonly args: unknown;
  readonly returns?: unknown;
  readonly public: boolean;
}

/**
 * The function executor: validates arguments, runs a query on a read-only view (recording dependencies)
 * or a mutation in one immediate write transaction. Paths are slash-separated (`tasks/list`).
 * Errors are RuntimeError (stable `code`) or DatabaseConflictError; anything else is an internal failure.
 */
export interface RuntimeEngine {
  readonly db: RuntimeDatabase;
  /** 'query' | 'mutation' for a known path, undefined otherwise. */
  kindOf(path: string): FunctionKind | undefined;
  /** Whether the function may be called without a session when auth is enabled. */
  isPublic(path: string): boolean;
  /** Whether the backend was defined with authentication. */
  readonly authEnabled: boolean;
  manifest(): readonly FunctionManifestEntry[];
  runQuery<T = unknown>(path: string, args: unknown, identity: Identity | null): QueryRun<T>;
  runMutation<T = unknown>(path: string, args: unknown, identity: Identity | null): MutationRun<T>;
}

/** What the Fetch handler hands to the live route for GET {prefix}/live/{path}?args=. */
export interface LiveRequestContext {
  readonly request: Request;
  /** Function path (slash-separated), already checked to be a known query. */
  readonly path: string;
  /** Parsed (not yet validated) arguments from `?args=`; the executor validates them. */
  readonly args: unknown;
  /** Caller at connect time (null when anonymous and the function is public or auth is off). */
  readonly identity: Identity | null;
  readonly engine: RuntimeEngine;
  /**
   * Re-check the session (e.g. on every rerun or heartbeat). When `identity` was non-null, a null result means
   * signed out or expired: close the stream. For anonymous connections it always returns null.
   */
  revalidate(): Identity | null;
}

/** Implementation of the live route, provided by src/runtime/live; plugged into createFetchHandler({ live }). */
export interface LiveRoute {
  handle(context: LiveRequestContext): Response | Promise<Response>;
}

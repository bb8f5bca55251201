// The opened database: serialized write transactions that bump the persisted revision, snapshot reads,
// commit notifications delivered after COMMIT (setImmediate), and cross-process change detection.
import type BetterSqlite3 from 'better-sqlite3';
import type { CommitEvent, CommitInfo, RuntimeDatabase } from '../engine.js';
import type { Schema } from '../schema/define-schema.js';
import { RuntimeError } from '../errors.js';
import { CommitLog } from './commit-log.js';

/** What a write transaction collects while it runs. */
export interface ChangeSet {
  readonly tables: Set<string>;
  readonly documents: Set<string>;
}

/** Effects the database needs (passed in so tests control them). */
export interface DatabaseEffects {
  now(): number;
  randomId(): string;
  /** Receives errors thrown by commit listeners (they never reach the mutation). */
  onListenerError(error: unknown): void;
}

/** RuntimeDatabase implementation over one better-sqlite3 connection. */
export class AppDatabase implements RuntimeDatabase {
  readonly sqlite: BetterSqlite3.Database;
  readonly path: string | null;
  readonly schema: Schema;
  readonly effects: DatabaseEffects;
  private readonly log: CommitLog;
  private readonly listeners = new Set<(event: CommitEvent) => void>();
  private readonly hooks = new Set<(tx: BetterSqlite3.Database, info: CommitInfo) => void>();
  private readonly pending: CommitEvent[] = [];
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private readonly dataVersion: BetterSqlite3.Statement<[], number>;
  // One transaction wrapper reused for every call (creating one per call costs several microseconds).
  private readonly runInTransaction: BetterSqlite3.Transaction<(fn: () => unknown) => unknown>;
  private lastRevision: number;
  private lastDataVersion: number;
  private lastCreationTime = 0;
  private flushScheduled = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(sqlite: BetterSqlite3.Database, path: string | null, schema: Schema, effects: DatabaseEffects) {
    this.sqlite = sqlite;
    this.path = path;
    this.schema = schema;
    this.effects = effects;
    this.log = new CommitLog(sqlite);
    this.dataVersion = sqlite.prepare('PRAGMA data_version').pluck() as BetterSqlite3.Statement<[], number>;
    this.runInTransaction = sqlite.transaction((fn: () => unknown) => fn());
    this.lastRevision = this.log.read();
    this.lastDataVersion = this.dataVersion.get() ?? 0;
  }

  /** Start polling for other processes' commits every `intervalMs` (timer does not keep the process alive). */
  startPolling(intervalMs: number): void {
    this.timer = setInterval(() => this.pollExternalChanges(), intervalMs);
    this.timer.unref();
  }

  revision(): number {
    return this.lastRevision;
  }

  onCommit(listener: (event: CommitEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onBeforeCommit(hook: (tx: BetterSqlite3.Database, info: CommitInfo) => void): () => void {
    this.hooks.add(hook);
    return () => this.hooks.delete(hook);
  }

  /** A cached prepared statement (the SQL text is the key). */
  statement(sql: string): BetterSqlite3.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.sqlite.prepare(sql);
      if (this.statements.size >= 500) this.statements.clear();
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** A strictly increasing creation time in milliseconds. */
  nextCreationTime(): number {
    // 1/1024 ms steps are exact in binary floating point.
    this.lastCreationTime = Math.max(this.effects.now(), this.lastCreationTime + 1 / 1024);
    return this.lastCreationTime;
  }

  /** Run `fn` on one consistent snapshot; returns its value and the revision that snapshot saw. */
  read<T>(fn: () => T): { value: T; revision: number } {
    this.pollExternalChanges();
    const result = this.runInTransaction.deferred(() => ({ value: fn(), revision: this.log.read() })) as { value: T; revision: number };
    if (result.revision > this.lastRevision) this.emitExternal(result.revision);
    return result;
  }

  /**
   * Run `fn` in one immediate write transaction. If it changed anything the revision is bumped and logged
   * and before-commit hooks run, all inside the transaction; listeners are notified after COMMIT.
   */
  write<T>(fn: (changes: ChangeSet) => T): { value: T; revision: number } {
    const changes: ChangeSet = { tables: new Set(), documents: new Set() };
    const result = this.immediate(() => {
      const value = fn(changes);
      if (changes.tables.size === 0) return { value, revision: this.log.read(), before: -1 };
      const before = this.log.read();
      const revision = this.log.record(before, changes.tables, changes.documents);
      const info: CommitInfo = { revision, tables: changes.tables, documents: changes.documents };
      for (const hook of this.hooks) hook(this.sqlite, info);
      return { value, revision, before };
    }) as { value: T; revision: number; before: number };
    if (result.before >= 0) {
      // Commits by other processes between our last look and this transaction come first, in order.
      if (result.before > this.lastRevision) this.emitExternal(result.before);
      this.lastRevision = result.revision;
      this.enqueue({ revision: result.revision, tables: changes.tables, documents: changes.documents });
    } else if (result.revision > this.lastRevision) {
      this.emitExternal(result.revision);
    }
    // lastDataVersion is left alone: the next poll re-reads the revision, so a commit by another process
    // right after ours is never hidden.
    return { value: result.value, revision: result.revision };
  }

  /** Run in BEGIN IMMEDIATE; a lock still held by another process after busyTimeout becomes SVC_RUNTIME_BUSY. */
  private immediate(fn: () => unknown): unknown {
    try {
      return this.runInTransaction.immediate(fn);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'SQLITE_BUSY')
        throw new RuntimeError('SVC_RUNTIME_BUSY', 'The database is busy (another process holds the write lock); retry.', { cause: error, expose: true });
      throw error;
    }
  }

  pollExternalChanges(): void {
    if (this.closed) return;
    const version = this.dataVersion.get() ?? 0;
    if (version === this.lastDataVersion) return;
    this.lastDataVersion = version;
    const revision = this.log.read();
    if (revision > this.lastRevision) this.emitExternal(revision);
  }

  /** Emit events for revisions (lastRevision, upTo] committed by other processes. */
  private emitExternal(upTo: number): void {
    const from = this.lastRevision;
    const logged = this.log.changesSince(from).filter((change) => change.revision <= upTo);
    const complete = logged.length === upTo - from && logged.every((change, i) => change.revision === from + i + 1);
    if (!complete) {
      this.enqueue({ revision: upTo, tables: new Set(), documents: new Set(), external: true, unknown: true });
    } else {
      for (const change of logged) {
        this.enqueue({
          revision: change.revision,
          tables: new Set(change.tables),
          documents: new Set(change.documents ?? []),
          external: true,
          ...(change.documents === null ? { unknown: true } : {}),
        });
      }
    }
    this.lastRevision = upTo;
  }

  private enqueue(event: CommitEvent): void {
    this.pending.push(event);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    const events = this.pending.splice(0);
    for (const event of events) {
      for (const listener of [...this.listeners]) {
        try {
          listener(event);
        } catch (error) {
          this.effects.onListenerError(error);
        }
      }
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.sqlite.close();
  }
}

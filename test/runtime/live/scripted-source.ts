// Test double for the hub's LiveQuerySource: an in-memory store that emits CommitEvents after
// "commit" the way the runtime database does (asynchronously). Integration tests use the real runtime.
import type { CommitEvent, LiveQuerySource, QueryRun } from '../../../src/runtime/live/index.js';

export class ScriptedSource implements LiveQuerySource {
  rev = 0;
  runs: string[] = [];
  readonly docs = new Map<string, { id: string; table: string; value: unknown }>();
  private readonly listeners = new Set<(e: CommitEvent) => void>();
  failWith: Error | null = null;

  revision(): number {
    return this.rev;
  }
  onCommit(listener: (e: CommitEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  /** Write one document and emit the CommitEvent after "commit" (setImmediate). */
  write(table: string, id: string, value: unknown): number {
    this.docs.set(id, { id, table, value });
    const event: CommitEvent = { revision: ++this.rev, tables: new Set([table]), documents: new Set([id]) };
    setImmediate(() => this.listeners.forEach((l) => l(event)));
    return event.revision;
  }
  /** Queries: "list" {table} reads a table; "get" {id} reads a document. */
  runQuery(path: string, args: unknown): QueryRun {
    this.runs.push(`${path}:${JSON.stringify(args)}`);
    if (this.failWith) throw this.failWith;
    const a = args as { table?: string; id?: string };
    if (path === 'list') {
      const value = [...this.docs.values()].filter((d) => d.table === a.table).map((d) => d.value);
      return { value, revision: this.rev, dependencies: { tables: new Set([a.table!]), documents: new Set() } };
    }
    if (path === 'get') {
      const value = this.docs.get(a.id!)?.value ?? null;
      return { value, revision: this.rev, dependencies: { tables: new Set(), documents: new Set([a.id!]) } };
    }
    throw new Error(`unknown query ${path}`);
  }
}

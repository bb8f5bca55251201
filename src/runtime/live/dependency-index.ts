import type { LiveQueryState } from './live-query-state.js';
import type { CommitEvent, Dependencies } from './live-types.js';

/** Finds the live queries a commit affects without scanning every query. */
export class DependencyIndex {
  private readonly byTable = new Map<string, Set<LiveQueryState>>();
  private readonly byDocument = new Map<string, Set<LiveQueryState>>();
  /** Queries with unknown dependencies (first run failed): rerun on every commit. */
  private readonly everything = new Set<LiveQueryState>();

  /** Replace a query's recorded dependencies (null = unknown, rerun on any commit). */
  set(query: LiveQueryState, deps: Dependencies | null): void {
    this.remove(query);
    query.deps = deps;
    if (deps === null) {
      this.everything.add(query);
      return;
    }
    for (const t of deps.tables) add(this.byTable, t, query);
    for (const d of deps.documents) add(this.byDocument, d, query);
  }

  /** Forget a query. */
  remove(query: LiveQueryState): void {
    this.everything.delete(query);
    const deps = query.deps;
    if (!deps) return;
    for (const t of deps.tables) del(this.byTable, t, query);
    for (const d of deps.documents) del(this.byDocument, d, query);
  }

  /** Call `visit` for every query the commit intersects (possibly more than once). */
  affected(event: CommitEvent, all: Iterable<LiveQueryState>, visit: (q: LiveQueryState) => void): void {
    if (event.unknown) {
      for (const q of all) visit(q);
      return;
    }
    for (const q of this.everything) visit(q);
    for (const t of event.tables) this.byTable.get(t)?.forEach(visit);
    for (const d of event.documents) this.byDocument.get(d)?.forEach(visit);
  }
}

function add(map: Map<string, Set<LiveQueryState>>, key: string, q: LiveQueryState): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(q);
}

function del(map: Map<string, Set<LiveQueryState>>, key: string, q: LiveQueryState): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(q);
  if (set.size === 0) map.delete(key);
}

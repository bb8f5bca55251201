import type { CommitEvent, Dependencies } from './live-types.js';

/** Whether a commit intersects a query's recorded dependencies (so the query must rerun). */
export function commitAffects(deps: Dependencies, event: CommitEvent): boolean {
  if (event.unknown) return true;
  for (const t of deps.tables) if (event.tables.has(t)) return true;
  for (const d of deps.documents) if (event.documents.has(d)) return true;
  return false;
}

import type { ControlDb } from '../../core/control-db.js';

/** First-seen times of graced conditions, with their project (for scoping). */
export function readConditionSince(db: ControlDb): { since: Map<string, number>; projectOf: Map<string, string | null> } {
  const rows = db.prepare('SELECT key, project_id AS projectId, since FROM ops_condition_since').all() as {
    key: string;
    projectId: string | null;
    since: number;
  }[];
  return { since: new Map(rows.map((r) => [r.key, r.since])), projectOf: new Map(rows.map((r) => [r.key, r.projectId])) };
}

/** Replace the first-seen table in one transaction. */
export function writeConditionSince(db: ControlDb, since: ReadonlyMap<string, number>, projectOf: ReadonlyMap<string, string | null>): void {
  const insert = db.prepare('INSERT INTO ops_condition_since (key, project_id, since) VALUES (?, ?, ?)');
  db.transaction(() => {
    db.prepare('DELETE FROM ops_condition_since').run();
    for (const [key, at] of since) insert.run(key, projectOf.get(key) ?? null, at);
  })();
}

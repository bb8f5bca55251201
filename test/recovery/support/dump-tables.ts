// Logical content of a database for comparisons: every non-recovery table's rows as SQL literals
// (quote() keeps storage class and exact value: 1, 1.0, X'01' and '1' all differ), sorted.
import Database from 'better-sqlite3';

/** Rows of every table (except sqlite_* and _svc_recovery_*), sorted. */
export function dumpTables(source: string | Database.Database): Record<string, string[][]> {
  const db = typeof source === 'string' ? new Database(source, { readonly: true, fileMustExist: true }) : source;
  try {
    const tables = db
      .prepare<[], { name: string }>(
        `SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite!_%' ESCAPE '!' AND name NOT LIKE '!_svc!_recovery!_%' ESCAPE '!' ORDER BY name`,
      )
      .all();
    const out: Record<string, string[][]> = {};
    for (const { name } of tables) {
      const columns = db
        .prepare<[], { name: string }>(`PRAGMA table_info("${name}")`)
        .all()
        .map((c) => `quote("${c.name}")`);
      const rows = db
        .prepare(`SELECT ${columns.join(', ')} FROM "${name}"`)
        .raw(true)
        .all() as string[][];
      out[name] = rows.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    }
    return out;
  } finally {
    if (typeof source === 'string') db.close();
  }
}

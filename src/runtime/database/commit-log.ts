// The persisted revision and a short change log, both written inside the committing transaction.
// Another process reads the log to learn exactly which tables and documents changed.
import type BetterSqlite3 from 'better-sqlite3';

/** How many revisions of change log are kept (older entries make external events "unknown"). */
export const CHANGE_LOG_KEEP = 1024;
/** Above this many documents a log entry stores only tables and marks documents unknown. */
const MAX_LOGGED_DOCUMENTS = 1000;

/** Statements creating the runtime's own tables. */
export const META_STATEMENTS = [
  'CREATE TABLE IF NOT EXISTS "_svc_meta" ("key" TEXT PRIMARY KEY NOT NULL, "value" INTEGER NOT NULL) STRICT',
  `INSERT OR IGNORE INTO "_svc_meta" ("key", "value") VALUES ('revision', 0)`,
  'CREATE TABLE IF NOT EXISTS "_svc_changes" ("revision" INTEGER PRIMARY KEY NOT NULL, "tables" TEXT NOT NULL, "documents" TEXT) STRICT',
];

export interface LoggedChange {
  revision: number;
  tables: string[];
  documents: string[] | null;
}

/** Prepared statements over the meta tables of one connection. */
export class CommitLog {
  private readonly getRevision: BetterSqlite3.Statement<[], { value: number }>;
  private readonly setRevision: BetterSqlite3.Statement<[number]>;
  private readonly append: BetterSqlite3.Statement<[number, string, string | null]>;
  private readonly prune: BetterSqlite3.Statement<[number]>;
  private readonly since: BetterSqlite3.Statement<[number], { revision: number; tables: string; documents: string | null }>;

  constructor(sqlite: BetterSqlite3.Database) {
    this.getRevision = sqlite.prepare(`SELECT "value" FROM "_svc_meta" WHERE "key" = 'revision'`);
    this.setRevision = sqlite.prepare(`UPDATE "_svc_meta" SET "value" = ? WHERE "key" = 'revision'`);
    this.append = sqlite.prepare('INSERT INTO "_svc_changes" ("revision", "tables", "documents") VALUES (?, ?, ?)');
    this.prune = sqlite.prepare('DELETE FROM "_svc_changes" WHERE "revision" <= ?');
    this.since = sqlite.prepare('SELECT "revision", "tables", "documents" FROM "_svc_changes" WHERE "revision" > ? ORDER BY "revision"');
  }

  /** The persisted revision as seen by the current transaction or snapshot. */
  read(): number {
    return this.getRevision.get()?.value ?? 0;
  }

  /** Inside a write transaction: bump the revision from `current` and log what changed; returns the new revision. */
  record(current: number, tables: ReadonlySet<string>, documents: ReadonlySet<string>): number {
    const revision = current + 1;
    this.setRevision.run(revision);
    const docs = documents.size > MAX_LOGGED_DOCUMENTS ? null : JSON.stringify([...documents]);
    this.append.run(revision, JSON.stringify([...tables]), docs);
    if (revision % 128 === 0) this.prune.run(revision - CHANGE_LOG_KEEP);
    return revision;
  }

  /** Logged changes after a revision, oldest first (may miss pruned revisions). */
  changesSince(revision: number): LoggedChange[] {
    return this.since.all(revision).map((row) => ({
      revision: row.revision,
      tables: JSON.parse(row.tables) as string[],
      documents: row.documents === null ? null : (JSON.parse(row.documents) as string[]),
    }));
  }
}

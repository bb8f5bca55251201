// Applies verified entries to a database being restored: per table, deletes by primary key first, then
// INSERT OR REPLACE of final row images. App triggers are removed during replay (their effects are
// already in the journal) and put back afterwards; foreign keys are off while rows arrive.
import type BetterSqlite3 from 'better-sqlite3';
import { SvcError } from '../core/errors.js';
import type { TableChanges } from './journal-entry.js';
import { inspectManagedTables, isRecoveryObject, quoteIdent, type ManagedTable } from './managed-tables.js';
import { decodeValue } from './value-codec.js';

/** Replays row changes with cached prepared statements. */
export class Replayer {
  private readonly db: BetterSqlite3.Database;
  private readonly tables: Map<string, ManagedTable>;
  private readonly deletes = new Map<string, BetterSqlite3.Statement>();
  private readonly upserts = new Map<string, BetterSqlite3.Statement>();
  private readonly triggers: { name: string; sql: string }[];

  constructor(db: BetterSqlite3.Database) {
    this.db = db;
    db.pragma('foreign_keys = OFF');
    this.triggers = db.prepare<[], { name: string; sql: string }>(`SELECT name, sql FROM main.sqlite_schema WHERE type = 'trigger' AND sql IS NOT NULL`).all();
    for (const trigger of this.triggers) db.exec(`DROP TRIGGER main.${quoteIdent(trigger.name)}`);
    this.tables = new Map(inspectManagedTables(db).map((table) => [table.name, table]));
  }

  /** Apply one entry's changes (inside the caller's transaction). */
  apply(sequence: number, changes: readonly TableChanges[]): void {
    for (const change of changes) {
      const table = this.tables.get(change.t);
      if (table === undefined || change.c.length !== table.columns.length || change.c.some((c, i) => c !== table.columns[i])) {
        throw new SvcError('SVC_RECOVERY_VERIFY_FAILED', `Entry ${sequence} writes table ${change.t} with columns the base snapshot does not have.`, {
          details: { sequence, table: change.t },
        });
      }
      const remove = this.statement(
        this.deletes,
        table,
        () => `DELETE FROM main.${quoteIdent(table.name)} WHERE ${table.keys.map((k) => `${quoteIdent(k)} = ?`).join(' AND ')}`,
      );
      for (const key of change.d) remove.run(...key.map(decodeValue));
      const upsert = this.statement(
        this.upserts,
        table,
        () =>
          `INSERT OR REPLACE INTO main.${quoteIdent(table.name)} (${table.columns.map(quoteIdent).join(', ')}) VALUES (${table.columns.map(() => '?').join(', ')})`,
      );
      for (const row of change.u) upsert.run(...row.map(decodeValue));
    }
  }

  /** Put back the app's triggers (recovery's own guard triggers stay removed). */
  restoreTriggers(): void {
    for (const trigger of this.triggers) if (!isRecoveryObject(trigger.name)) this.db.exec(trigger.sql);
  }

  private statement(cache: Map<string, BetterSqlite3.Statement>, table: ManagedTable, sql: () => string): BetterSqlite3.Statement {
    let statement = cache.get(table.name);
    if (statement === undefined) cache.set(table.name, (statement = this.db.prepare(sql())));
    return statement;
  }
}

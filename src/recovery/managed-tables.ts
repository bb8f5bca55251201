// Which tables recovery journals and whether it can: every ordinary table of `main` except SQLite's and
// recovery's own. Tables it cannot replay exactly are rejected up front (docs/recovery.md lists them).
import { createHash } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import { SvcError } from '../core/errors.js';

/** Prefix of every schema object recovery owns (tables, guard triggers). */
export const RECOVERY_PREFIX = '_svc_recovery_';

/** A journaled table: its columns in order and its primary-key columns. */
export interface ManagedTable {
  readonly name: string;
  readonly columns: readonly string[];
  readonly keys: readonly string[];
}

/** Quote an SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Whether a schema object belongs to recovery. */
export function isRecoveryObject(name: string): boolean {
  return name.startsWith(RECOVERY_PREFIX);
}

interface XInfo {
  name: string;
  pk: number;
  hidden: number;
}

/** List and check the managed tables; throws SVC_RECOVERY_TABLE_UNSUPPORTED naming the table. */
export function inspectManagedTables(db: BetterSqlite3.Database): ManagedTable[] {
  const rows = db
    .prepare<[], { name: string; sql: string | null }>(`SELECT "name", "sql" FROM main.sqlite_schema WHERE "type" = 'table' ORDER BY "name"`)
    .all();
  const tables: ManagedTable[] = [];
  for (const { name, sql } of rows) {
    if (name.startsWith('sqlite_') || isRecoveryObject(name)) continue;
    const unsupported = (reason: string): never => {
      throw new SvcError('SVC_RECOVERY_TABLE_UNSUPPORTED', `Table ${name} cannot be journaled: ${reason}.`, { details: { table: name, reason } });
    };
    if (/^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(sql ?? '')) unsupported('virtual table');
    const info = db.prepare<[], XInfo>(`PRAGMA main.table_xinfo(${quoteIdent(name)})`).all();
    const special = info.find((column) => column.hidden !== 0);
    if (special) unsupported(`column ${special.name} is ${special.hidden === 1 ? 'hidden' : 'generated'}`);
    const keys = info
      .filter((column) => column.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((column) => column.name);
    if (keys.length === 0) unsupported('no primary key');
    const nullKey = db.prepare(`SELECT 1 FROM main.${quoteIdent(name)} WHERE ${keys.map((k) => `${quoteIdent(k)} IS NULL`).join(' OR ')} LIMIT 1`).get();
    if (nullKey !== undefined) unsupported('a primary-key value is null');
    tables.push({ name, columns: info.map((column) => column.name), keys });
  }
  return tables;
}

/** SHA-256 (hex) of main's schema without recovery's own objects: any DDL change alters it. */
export function schemaHash(db: BetterSqlite3.Database): string {
  const rows = db
    .prepare<[], { type: string; name: string; tbl_name: string; sql: string | null }>(
      `SELECT "type", "name", "tbl_name", "sql" FROM main.sqlite_schema ORDER BY "type", "name"`,
    )
    .all()
    .filter((row) => !isRecoveryObject(row.name) && row.name !== 'sqlite_sequence');
  return createHash('sha256')
    .update(JSON.stringify(rows.map((row) => [row.type, row.name, row.tbl_name, row.sql])))
    .digest('hex');
}

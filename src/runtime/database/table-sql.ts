// Pure SQL generation for app tables: one SQLite table per app table, declared indexes as expression
// indexes over json_extract. The same fieldSql() text is used by indexes and queries so SQLite matches them.
import type { TableDefinition } from '../schema/define-schema.js';

/** Columns stored outside the JSON document. */
export const COLUMN_FIELDS = new Set(['_id', '_creationTime', '_version', '_ownerId']);

/** Quote an identifier that was already checked against the name rules. */
export function quoteName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** SQL expression of a queryable field: a column for system fields, json_extract for declared ones. */
export function fieldSql(field: string): string {
  return COLUMN_FIELDS.has(field) ? quoteName(field) : `json_extract("doc", '$.${field}')`;
}

/** Name of the SQLite index backing a declared index. */
export function indexSqlName(table: string, index: string): string {
  return `${table}__${index}`;
}

/** Statements creating the table and all its indexes (idempotent). */
export function createTableStatements(table: string, definition: TableDefinition): string[] {
  const t = quoteName(table);
  const owner = definition.isOwned ? [quoteName('_ownerId')] : [];
  const statements = [
    `CREATE TABLE IF NOT EXISTS ${t} ("_id" TEXT PRIMARY KEY NOT NULL, "_creationTime" REAL NOT NULL, "_version" INTEGER NOT NULL, "_ownerId" TEXT, "doc" TEXT NOT NULL) STRICT`,
    `CREATE INDEX IF NOT EXISTS ${quoteName(indexSqlName(table, 'by_creation_time'))} ON ${t} (${[...owner, '"_creationTime"'].join(', ')})`,
  ];
  for (const index of definition.indexes) {
    const columns = [...owner, ...index.fields.map(fieldSql), '"_creationTime"'];
    statements.push(`CREATE INDEX IF NOT EXISTS ${quoteName(indexSqlName(table, index.name))} ON ${t} (${columns.join(', ')})`);
  }
  return statements;
}

/** Names of the SQLite indexes the schema wants for a table (others with our prefix are dropped). */
export function wantedIndexNames(table: string, definition: TableDefinition): Set<string> {
  return new Set([indexSqlName(table, 'by_creation_time'), ...definition.indexes.map((i) => indexSqlName(table, i.name))]);
}

// The read view handed to queries (and, extended, to mutations): get by id and the query builder.
// Owned tables are scoped to the caller; every read records what it depended on.
import type { Identity } from '../engine.js';
import { RuntimeError } from '../errors.js';
import type { TableDefinition } from '../schema/define-schema.js';
import { tableOfId } from '../values/validators.js';
import type { AppDatabase } from './app-database.js';
import { DocumentQuery } from './document-query.js';
import { quoteName } from './table-sql.js';

/** A stored row as SQLite returns it. */
export interface StoredRow {
  _id: string;
  _creationTime: number;
  _version: number;
  _ownerId: string | null;
  doc: string;
}

/** Mutable dependency sets filled while a function runs. */
export interface DependencySets {
  readonly tables: Set<string>;
  readonly documents: Set<string>;
}

/** Turn a stored row into the document a function sees. */
export function rowToDocument(row: StoredRow): Record<string, unknown> {
  const system: Record<string, unknown> = { _id: row._id, _creationTime: row._creationTime, _version: row._version };
  if (row._ownerId !== null) system._ownerId = row._ownerId;
  return { ...system, ...(JSON.parse(row.doc) as Record<string, unknown>) };
}

/** Read access to documents for one function call. */
export class DocumentReader {
  protected readonly db: AppDatabase;
  protected readonly identity: Identity | null;
  protected readonly dependencies: DependencySets | null;

  constructor(db: AppDatabase, identity: Identity | null, dependencies: DependencySets | null) {
    this.db = db;
    this.identity = identity;
    this.dependencies = dependencies;
  }

  /** The document with this id, or null when it does not exist or belongs to another user. */
  get(id: string): Record<string, unknown> | null {
    if (typeof id !== 'string') throw new RuntimeError('SVC_RUNTIME_INVALID_QUERY', 'get() needs a document id string.');
    const table = tableOfId(id);
    this.dependencies?.documents.add(id);
    if (table === null || !Object.hasOwn(this.db.schema.tables, table)) return null;
    const row = this.loadRow(table, id);
    return row === undefined ? null : rowToDocument(row);
  }

  /** Start a builder query over a table; the whole table becomes a dependency when it runs. */
  query(table: string): DocumentQuery<Record<string, unknown>> {
    const definition = this.table(table);
    return DocumentQuery.start(table, definition, this.ownerFilter(table, definition), (sql, params) => {
      this.dependencies?.tables.add(table);
      return (this.db.statement(sql).all(...params) as StoredRow[]).map(rowToDocument);
    });
  }

  /** The table definition, or SVC_RUNTIME_UNKNOWN_TABLE. */
  protected table(table: string): TableDefinition {
    if (typeof table !== 'string' || !Object.hasOwn(this.db.schema.tables, table))
      throw new RuntimeError('SVC_RUNTIME_UNKNOWN_TABLE', `Unknown table "${String(table)}".`);
    return this.db.schema.tables[table]!;
  }

  /** The owner a read or write of this table is scoped to (undefined for tables without owners). */
  protected ownerFilter(table: string, definition: TableDefinition): string | undefined {
    if (!definition.isOwned) return undefined;
    if (this.identity === null) throw new RuntimeError('SVC_RUNTIME_UNAUTHENTICATED', `Table ${table} is owned: sign in to use it.`);
    return this.identity.userId;
  }

  /** The visible row with this id (scoped by owner), if any. */
  protected loadRow(table: string, id: string): StoredRow | undefined {
    const owner = this.ownerFilter(table, this.table(table));
    const select = `SELECT "_id", "_creationTime", "_version", "_ownerId", "doc" FROM ${quoteName(table)} WHERE "_id" = ?`;
    if (owner === undefined) return this.db.statement(select).get(id) as StoredRow | undefined;
    return this.db.statement(`${select} AND "_ownerId" = ?`).get(id, owner) as StoredRow | undefined;
  }
}

// Writes inside a mutation's transaction: insert, patch, replace, delete. Every write is validated
// against the schema before it reaches SQLite, checks `ifVersion`, and bumps `_version`.
import type { Identity } from '../engine.js';
import { DatabaseConflictError, RuntimeError } from '../errors.js';
import { checkFields, tableOfId } from '../values/validators.js';
import type { AppDatabase, ChangeSet } from './app-database.js';
import { DocumentReader, type StoredRow } from './document-reader.js';
import { quoteName } from './table-sql.js';

/** Options of patch/replace/delete. */
export interface WriteOptions {
  /** Expected `_version`; a different current version throws DatabaseConflictError. */
  ifVersion?: number;
}

/** Largest stored document (JSON characters). */
export const MAX_DOCUMENT_CHARS = 1024 * 1024;

const SYSTEM_KEYS = new Set(['_id', '_creationTime', '_version', '_ownerId']);

/** Read and write access for one mutation. */
export class DocumentWriter extends DocumentReader {
  private readonly changes: ChangeSet;

  constructor(db: AppDatabase, identity: Identity | null, changes: ChangeSet) {
    super(db, identity, null);
    this.changes = changes;
  }

  /** Insert a document; returns its new id. */
  insert(table: string, value: Record<string, unknown>): string {
    const definition = this.table(table);
    const owner = this.ownerFilter(table, definition) ?? null;
    const doc = this.validate(table, value);
    const id = `${table}_${this.db.effects.randomId()}`;
    this.db
      .statement(`INSERT INTO ${quoteName(table)} ("_id", "_creationTime", "_version", "_ownerId", "doc") VALUES (?, ?, 1, ?, ?)`)
      .run(id, this.db.nextCreationTime(), owner, doc);
    this.touch(table, id);
    return id;
  }

  /** Shallow-merge fields into a document (an undefined value removes an optional field). */
  patch(id: string, value: Record<string, unknown>, options: WriteOptions = {}): void {
    const { table, row } = this.current(id, options);
    const merged: Record<string, unknown> = { ...(JSON.parse(row.doc) as Record<string, unknown>) };
    for (const [key, fieldValue] of Object.entries(this.userFields(value))) {
      if (fieldValue === undefined) delete merged[key];
      else merged[key] = fieldValue;
    }
    this.update(table, row, this.validate(table, merged));
  }

  /** Replace all declared fields of a document. */
  replace(id: string, value: Record<string, unknown>, options: WriteOptions = {}): void {
    const { table, row } = this.current(id, options);
    this.update(table, row, this.validate(table, value));
  }

  /** Delete a document. */
  delete(id: string, options: WriteOptions = {}): void {
    const { table, row } = this.current(id, options);
    this.db.statement(`DELETE FROM ${quoteName(table)} WHERE "_id" = ?`).run(row._id);
    this.touch(table, row._id);
  }

  private current(id: string, options: WriteOptions): { table: string; row: StoredRow } {
    if (options.ifVersion !== undefined && (!Number.isInteger(options.ifVersion) || options.ifVersion < 1)) {
      throw new RuntimeError('SVC_RUNTIME_INVALID_DOCUMENT', 'ifVersion must be a positive integer.');
    }
    const table = typeof id === 'string' ? tableOfId(id) : null;
    if (table === null || !Object.hasOwn(this.db.schema.tables, table)) throw new RuntimeError('SVC_RUNTIME_DOCUMENT_NOT_FOUND', `No document ${String(id)}.`);
    // Another user's document in an owned table is invisible: it reads as not found.
    const row = this.loadRow(table, id);
    if (row === undefined) throw new RuntimeError('SVC_RUNTIME_DOCUMENT_NOT_FOUND', `No document ${id}.`);
    if (options.ifVersion !== undefined && row._version !== options.ifVersion) throw new DatabaseConflictError(id, options.ifVersion, row._version);
    return { table, row };
  }

  private update(table: string, row: StoredRow, doc: string): void {
    this.db.statement(`UPDATE ${quoteName(table)} SET "doc" = ?, "_version" = ? WHERE "_id" = ?`).run(doc, row._version + 1, row._id);
    this.touch(table, row._id);
  }

  private userFields(value: Record<string, unknown>): Record<string, unknown> {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new RuntimeError('SVC_RUNTIME_INVALID_DOCUMENT', 'A document must be an object.');
    const out: Record<string, unknown> = {};
    for (const [key, fieldValue] of Object.entries(value)) if (!SYSTEM_KEYS.has(key)) out[key] = fieldValue;
    return out;
  }

  private validate(table: string, value: Record<string, unknown>): string {
    const checked = checkFields(this.table(table).fields, this.userFields(value), table, 'SVC_RUNTIME_INVALID_DOCUMENT');
    const json = JSON.stringify(checked);
    if (json.length > MAX_DOCUMENT_CHARS)
      throw new RuntimeError('SVC_RUNTIME_INVALID_DOCUMENT', `A ${table} document exceeds ${MAX_DOCUMENT_CHARS} characters.`);
    return json;
  }

  private touch(table: string, id: string): void {
    this.changes.tables.add(table);
    this.changes.documents.add(id);
  }
}

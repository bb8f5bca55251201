// Existing rows are checked against the schema when a database opens, so a schema change that no
// longer fits stored data fails at startup instead of at the first read.
import type Database from 'better-sqlite3';
import { RuntimeError } from '../errors.js';
import type { Schema } from '../schema/define-schema.js';
import { checkFields } from '../values/validators.js';
import { quoteName } from './table-sql.js';

/** Throws SVC_RUNTIME_SCHEMA_MISMATCH naming the first row that does not fit its table's schema. */
export function revalidateRows(sqlite: Database.Database, schema: Schema): void {
  for (const [table, definition] of Object.entries(schema.tables)) {
    const rows = sqlite
      .prepare<[], { _id: string; _ownerId: string | null; doc: string }>(`SELECT "_id", "_ownerId", "doc" FROM ${quoteName(table)}`)
      .iterate();
    for (const row of rows) {
      try {
        checkFields(definition.fields, JSON.parse(row.doc), '', 'SVC_RUNTIME_SCHEMA_MISMATCH');
        if (definition.isOwned && row._ownerId === null) throw new RuntimeError('SVC_RUNTIME_SCHEMA_MISMATCH', 'has no owner but the table is owned');
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new RuntimeError('SVC_RUNTIME_SCHEMA_MISMATCH', `Row ${row._id} of table ${table} does not match the schema: ${reason}`, { cause: error });
      }
    }
  }
}

// Schema: tables with declared fields, indexes (name + field list) and an optional owner column.
// Names are checked when the schema is defined (at app startup), before any database opens.
import { RuntimeError } from '../errors.js';
import { isValidName, type Id, type ObjectType, type PropertyValidators } from '../values/validators.js';

/** A table definition; `.index()` and `.owned()` return new definitions (immutable builder). */
export class TableDefinition<F extends PropertyValidators = PropertyValidators, Owned extends boolean = boolean> {
  readonly fields: F;
  readonly indexes: ReadonlyArray<{ readonly name: string; readonly fields: readonly string[] }>;
  readonly isOwned: Owned;

  constructor(fields: F, indexes: ReadonlyArray<{ name: string; fields: readonly string[] }>, isOwned: Owned) {
    this.fields = fields;
    this.indexes = indexes;
    this.isOwned = isOwned;
  }

  /** Declare an index over stored fields (declared fields or `_creationTime`/`_version`). */
  index(name: string, fields: ReadonlyArray<(keyof F & string) | '_creationTime' | '_version'>): TableDefinition<F, Owned> {
    return new TableDefinition(this.fields, [...this.indexes, { name, fields: [...fields] }], this.isOwned);
  }

  /** Make rows belong to the signed-in user: reads and writes are scoped by `_ownerId` automatically. */
  owned(): TableDefinition<F, true> {
    return new TableDefinition(this.fields, this.indexes, true);
  }
}

/** Define a table from field validators. */
export function defineTable<F extends PropertyValidators>(fields: F): TableDefinition<F, false> {
  return new TableDefinition(fields, [], false);
}

export type SchemaTables = Record<string, TableDefinition>;

/** A checked schema. */
export interface Schema<T extends SchemaTables = SchemaTables> {
  readonly tables: T;
}

/** Define the app schema; throws SVC_RUNTIME_SCHEMA on bad table, field or index names. */
export function defineSchema<T extends SchemaTables>(tables: T): Schema<T> {
  for (const [table, definition] of Object.entries(tables)) {
    if (!isValidName(table) || table.toLowerCase().startsWith('sqlite')) {
      throw new RuntimeError('SVC_RUNTIME_SCHEMA', `Invalid table name "${table}": use letters, digits and underscores, starting with a letter.`);
    }
    for (const field of Object.keys(definition.fields)) {
      if (!isValidName(field)) throw new RuntimeError('SVC_RUNTIME_SCHEMA', `Invalid field name "${table}.${field}".`);
    }
    const seen = new Set<string>();
    for (const index of definition.indexes) {
      if (!isValidName(index.name) || seen.has(index.name))
        throw new RuntimeError('SVC_RUNTIME_SCHEMA', `Invalid or duplicate index name "${table}.${index.name}".`);
      seen.add(index.name);
      if (index.fields.length === 0) throw new RuntimeError('SVC_RUNTIME_SCHEMA', `Index "${table}.${index.name}" has no fields.`);
      for (const field of index.fields) {
        if (!Object.hasOwn(definition.fields, field) && field !== '_creationTime' && field !== '_version') {
          throw new RuntimeError('SVC_RUNTIME_SCHEMA', `Index "${table}.${index.name}" names unknown field "${field}".`);
        }
      }
    }
  }
  return { tables };
}

type FieldsOf<D> = D extends TableDefinition<infer F, boolean> ? F : never;
type OwnedOf<D> = D extends TableDefinition<PropertyValidators, infer O> ? O : never;

/** Table names of a schema. */
export type TableNames<S extends Schema> = keyof S['tables'] & string;

/** The stored document type of a table: declared fields plus system fields (and `_ownerId` on owned tables). */
export type Doc<S extends Schema, T extends TableNames<S>> = Expand<
  { _id: Id<T>; _creationTime: number; _version: number } & (OwnedOf<S['tables'][T]> extends true ? { _ownerId: string } : unknown) &
    ObjectType<FieldsOf<S['tables'][T]>>
>;

type Expand<T> = T extends infer O ? { [K in keyof O]: O[K] } : never;

/** The value accepted by insert/replace: declared fields only. */
export type DocInput<S extends Schema, T extends TableNames<S>> = ObjectType<FieldsOf<S['tables'][T]>>;

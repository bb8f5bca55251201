// The query builder: immutable steps (where/eq/…/filter/withIndex/order/limit) compiled to one SQL
// statement with bound parameters when collect()/first()/take() runs.
import { RuntimeError } from '../errors.js';
import type { TableDefinition } from '../schema/define-schema.js';
import { compileQuery, type ComparisonOp, type Condition, type QueryPlan, type ScalarValue } from './query-sql.js';

/** Builds filter conditions inside filter()/withIndex() callbacks. */
export interface FilterBuilder<D> {
  eq<K extends keyof D & string>(field: K, value: FieldValue<D, K>): Condition;
  neq<K extends keyof D & string>(field: K, value: FieldValue<D, K>): Condition;
  lt<K extends keyof D & string>(field: K, value: FieldValue<D, K>): Condition;
  lte<K extends keyof D & string>(field: K, value: FieldValue<D, K>): Condition;
  gt<K extends keyof D & string>(field: K, value: FieldValue<D, K>): Condition;
  gte<K extends keyof D & string>(field: K, value: FieldValue<D, K>): Condition;
  and(...conditions: Condition[]): Condition;
  or(...conditions: Condition[]): Condition;
}

/** A comparable value for a field: its type (without undefined) or null. */
export type FieldValue<D, K extends keyof D> = (Exclude<D[K], undefined> & ScalarValue) | null;

type Run = (sql: string, params: unknown[]) => Record<string, unknown>[];

function condition(op: ComparisonOp, field: string, value: ScalarValue): Condition {
  return { op, field, value };
}

const filterBuilder: FilterBuilder<Record<string, unknown>> = {
  eq: (field, value) => condition('eq', field, value),
  neq: (field, value) => condition('neq', field, value),
  lt: (field, value) => condition('lt', field, value),
  lte: (field, value) => condition('lte', field, value),
  gt: (field, value) => condition('gt', field, value),
  gte: (field, value) => condition('gte', field, value),
  and: (...conditions) => ({ op: 'and', conditions }),
  or: (...conditions) => ({ op: 'or', conditions }),
};

const MAX_LIMIT = 10_000;

/** A query over one table; each step returns a new query. */
export class DocumentQuery<D> {
  private readonly plan: QueryPlan;
  private readonly definition: TableDefinition;
  private readonly run: Run;

  private constructor(plan: QueryPlan, definition: TableDefinition, run: Run) {
    this.plan = plan;
    this.definition = definition;
    this.run = run;
  }

  /** Internal: a query over `table`, scoped to `ownerId` when the table is owned. */
  static start(table: string, definition: TableDefinition, ownerId: string | undefined, run: Run): DocumentQuery<Record<string, unknown>> {
    const plan: QueryPlan = { table, conditions: [], order: { field: '_creationTime', direction: 'asc' }, ...(ownerId === undefined ? {} : { ownerId }) };
    return new DocumentQuery(plan, definition, run);
  }

  private with(change: Partial<QueryPlan>): DocumentQuery<D> {
    return new DocumentQuery({ ...this.plan, ...change }, this.definition, this.run);
  }

  private add(...conditions: Condition[]): DocumentQuery<D> {
    return this.with({ conditions: [...this.plan.conditions, ...conditions] });
  }

  /** Equality: `where('done', false)`. */
  where<K extends keyof D & string>(field: K, value: FieldValue<D, K>): DocumentQuery<D> {
    return this.add(condition('eq', field, value));
  }
  eq<K extends keyof D & string>(field: K, value: FieldValue<D, K>): DocumentQuery<D> {
    return this.add(condition('eq', field, value));
  }
  neq<K extends keyof D & string>(field: K, value: FieldValue<D, K>): DocumentQuery<D> {
    return this.add(condition('neq', field, value));
  }
  lt<K extends keyof D & string>(field: K, value: FieldValue<D, K>): DocumentQuery<D> {
    return this.add(condition('lt', field, value));
  }
  lte<K extends keyof D & string>(field: K, value: FieldValue<D, K>): DocumentQuery<D> {
    return this.add(condition('lte', field, value));
  }
  gt<K extends keyof D & string>(field: K, value: FieldValue<D, K>): DocumentQuery<D> {
    return this.add(condition('gt', field, value));
  }
  gte<K extends keyof D & string>(field: K, value: FieldValue<D, K>): DocumentQuery<D> {
    return this.add(condition('gte', field, value));
  }

  /** Add conditions built with `q.eq/neq/lt/lte/gt/gte/and/or` (all must hold). */
  filter(build: (q: FilterBuilder<D>) => Condition | Condition[]): DocumentQuery<D> {
    const built = build(filterBuilder as unknown as FilterBuilder<D>);
    return this.add(...(Array.isArray(built) ? built : [built]));
  }

  /** Force a declared index (SQLite's INDEXED BY); optional conditions as in filter(). */
  withIndex(name: string, build?: (q: FilterBuilder<D>) => Condition | Condition[]): DocumentQuery<D> {
    if (name !== 'by_creation_time' && !this.definition.indexes.some((index) => index.name === name)) {
      throw new RuntimeError('SVC_RUNTIME_INVALID_QUERY', `Table ${this.plan.table} has no index "${name}".`);
    }
    const next = this.with({ index: name });
    return build === undefined ? next : next.filter(build);
  }

  /** Order by a field (default `_creationTime`), ascending or descending. */
  order(direction: 'asc' | 'desc', field: (keyof D & string) | '_creationTime' = '_creationTime'): DocumentQuery<D> {
    if (direction !== 'asc' && direction !== 'desc') throw new RuntimeError('SVC_RUNTIME_INVALID_QUERY', 'order() takes "asc" or "desc".');
    return this.with({ order: { field, direction } });
  }

  /** At most `count` documents. */
  limit(count: number): DocumentQuery<D> {
    if (!Number.isInteger(count) || count < 0 || count > MAX_LIMIT)
      throw new RuntimeError('SVC_RUNTIME_INVALID_QUERY', `limit() takes an integer from 0 to ${MAX_LIMIT}.`);
    return this.with({ limit: count });
  }

  /** All matching documents. */
  collect(): D[] {
    const { sql, params } = compileQuery(this.plan, (field) => this.isField(field));
    try {
      return this.run(sql, params) as D[];
    } catch (error) {
      if (error instanceof RuntimeError) throw error;
      throw new RuntimeError('SVC_RUNTIME_INVALID_QUERY', `Query on ${this.plan.table} failed: ${(error as Error).message}`, { cause: error });
    }
  }

  /** The first `count` matching documents. */
  take(count: number): D[] {
    return this.limit(count).collect();
  }

  /** The first matching document or null. */
  first(): D | null {
    return this.limit(1).collect()[0] ?? null;
  }

  /** The only matching document or null; more than one match throws SVC_RUNTIME_INVALID_QUERY. */
  unique(): D | null {
    const found = this.limit(2).collect();
    if (found.length > 1) throw new RuntimeError('SVC_RUNTIME_INVALID_QUERY', `unique() found more than one document in ${this.plan.table}.`);
    return found[0] ?? null;
  }

  /** The SQL this query compiles to (for EXPLAIN QUERY PLAN in tests and debugging). */
  toSql(): { sql: string; params: unknown[] } {
    return compileQuery(this.plan, (field) => this.isField(field));
  }

  private isField(field: string): boolean {
    return field === '_id' || field === '_creationTime' || field === '_version' || Object.hasOwn(this.definition.fields, field);
  }
}

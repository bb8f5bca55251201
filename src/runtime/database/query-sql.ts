// Pure compilation of a document query (conditions, order, limit) to one SQL statement with bound
// parameters. Conditions on declared fields use the same json_extract text as the indexes.
import { RuntimeError } from '../errors.js';
import { fieldSql, indexSqlName, quoteName } from './table-sql.js';

/** Values a condition may compare against. */
export type ScalarValue = string | number | bigint | boolean | null;

export type ComparisonOp = 'eq' | 'neq' | 'lt' | 'lte' | 'gt' | 'gte';

/** A filter condition tree. */
export type Condition =
  { readonly op: ComparisonOp; readonly field: string; readonly value: ScalarValue } | { readonly op: 'and' | 'or'; readonly conditions: readonly Condition[] };

/** Everything a builder query has collected before it runs. */
export interface QueryPlan {
  readonly table: string;
  readonly index?: string;
  readonly conditions: readonly Condition[];
  readonly order: { readonly field: string; readonly direction: 'asc' | 'desc' };
  readonly limit?: number;
  /** Set for owned tables: only this owner's rows are visible. */
  readonly ownerId?: string;
}

const OPS = { eq: true, neq: true, lt: true, lte: true, gt: true, gte: true };
const SQL_OPS: Record<Exclude<ComparisonOp, 'eq' | 'neq'>, string> = { lt: '<', lte: '<=', gt: '>', gte: '>=' };

/** Compile a plan to SQL; `isField` says which field names are queryable on the table. */
export function compileQuery(plan: QueryPlan, isField: (field: string) => boolean): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const where: string[] = [];
  if (plan.ownerId !== undefined) {
    where.push('"_ownerId" = ?');
    params.push(plan.ownerId);
  }
  for (const condition of plan.conditions) where.push(compileCondition(condition, isField, params));
  if (!isField(plan.order.field)) throw new RuntimeError('SVC_RUNTIME_INVALID_QUERY', `Cannot order by unknown field "${plan.order.field}".`);
  const direction = plan.order.direction === 'desc' ? 'DESC' : 'ASC';
  const orderBy = [`${fieldSql(plan.order.field)} ${direction}`];
  if (plan.order.field !== '_creationTime') orderBy.push(`"_creationTime" ${direction}`);
  let sql = `SELECT "_id", "_creationTime", "_version", "_ownerId", "doc" FROM ${quoteName(plan.table)}`;
  if (plan.index !== undefined) sql += ` INDEXED BY ${quoteName(indexSqlName(plan.table, plan.index))}`;
  if (where.length > 0) sql += ` WHERE ${where.join(' AND ')}`;
  sql += ` ORDER BY ${orderBy.join(', ')}`;
  if (plan.limit !== undefined) {
    sql += ' LIMIT ?';
    params.push(plan.limit);
  }
  return { sql, params };
}

function compileCondition(node: Condition, isField: (field: string) => boolean, params: unknown[]): string {
  if ('conditions' in node) {
    if (node.op !== 'and' && node.op !== 'or') throw new RuntimeError('SVC_RUNTIME_INVALID_QUERY', 'Unknown condition.');
    if (node.conditions.length === 0) return node.op === 'and' ? '1' : '0';
    const parts = node.conditions.map((c) => compileCondition(c, isField, params));
    return `(${parts.join(node.op === 'and' ? ' AND ' : ' OR ')})`;
  }
  const condition = node;
  if (!Object.hasOwn(OPS, condition.op)) throw new RuntimeError('SVC_RUNTIME_INVALID_QUERY', `Unknown operator "${String(condition.op)}".`);
  if (!isField(condition.field)) throw new RuntimeError('SVC_RUNTIME_INVALID_QUERY', `Unknown field "${condition.field}".`);
  const expr = fieldSql(condition.field);
  const value = bindable(condition.value, condition.field);
  if (condition.op === 'eq') {
    if (value === null) return `${expr} IS NULL`;
    params.push(value);
    return `${expr} = ?`;
  }
  if (condition.op === 'neq') {
    if (value === null) return `${expr} IS NOT NULL`;
    params.push(value);
    return `${expr} IS NOT ?`;
  }
  if (value === null) throw new RuntimeError('SVC_RUNTIME_INVALID_QUERY', `Cannot compare "${condition.field}" with null using ${condition.op}.`);
  params.push(value);
  return `${expr} ${SQL_OPS[condition.op]} ?`;
}

function bindable(value: unknown, field: string): string | number | bigint | null {
  if (value === null || typeof value === 'string' || typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  // json_extract returns 1/0 for JSON true/false.
  if (typeof value === 'boolean') return value ? 1 : 0;
  throw new RuntimeError('SVC_RUNTIME_INVALID_QUERY', `Value for "${field}" must be a string, finite number, bigint, boolean or null.`);
}

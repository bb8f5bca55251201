// SQL that captures row changes in the writer's own transaction. TEMP triggers (per connection, never
// stored in the file) append the touched primary keys to a TEMP capture table; a statement or
// transaction rollback removes those rows too, so the capture is exactly what commits. Persistent
// guard triggers reject managed writes on any connection where recovery is not attached.
import { quoteIdent, RECOVERY_PREFIX, type ManagedTable } from './managed-tables.js';

/** Name of the TEMP capture table. */
export const CAPTURE_TABLE = `temp.${RECOVERY_PREFIX}capture`;
/** SQL function the capture triggers call so writes outside managed transactions get journaled too. */
export const TOUCH_FUNCTION = 'svc_recovery_touched';
/** SQL function the guard triggers call; registered only by an attached recovery. */
export const GUARD_FUNCTION = 'svc_recovery_attached';
/** Guard function results. */
export const GUARD_OPEN = 1;
export const GUARD_FENCED = 2;

/** Width of the capture table's key columns for these tables. */
export function captureWidth(tables: readonly ManagedTable[]): number {
  return Math.max(1, ...tables.map((table) => table.keys.length));
}

/** Statements creating the TEMP capture table and TEMP capture triggers (table i is identified by i). */
export function captureStatements(tables: readonly ManagedTable[]): string[] {
  const width = captureWidth(tables);
  const keyColumns = Array.from({ length: width }, (_, i) => `k${i}`);
  const statements = [`CREATE TEMP TABLE IF NOT EXISTS ${RECOVERY_PREFIX}capture (t INTEGER NOT NULL, ${keyColumns.join(', ')})`];
  tables.forEach((table, index) => {
    const target = `INSERT INTO ${CAPTURE_TABLE} (t, ${keyColumns.slice(0, table.keys.length).join(', ')})`;
    const keys = (row: 'NEW' | 'OLD'): string => table.keys.map((key) => `${row}.${quoteIdent(key)}`).join(', ');
    const on = `ON main.${quoteIdent(table.name)}`;
    const name = (op: string): string => quoteIdent(`${RECOVERY_PREFIX}c${index}_${op}`);
    const touch = `SELECT ${TOUCH_FUNCTION}();`;
    statements.push(
      `CREATE TEMP TRIGGER ${name('i')} AFTER INSERT ${on} BEGIN ${target} VALUES (${index}, ${keys('NEW')}); ${touch} END`,
      `CREATE TEMP TRIGGER ${name('u')} AFTER UPDATE ${on} BEGIN ${target} VALUES (${index}, ${keys('OLD')}), (${index}, ${keys('NEW')}); ${touch} END`,
      `CREATE TEMP TRIGGER ${name('d')} AFTER DELETE ${on} BEGIN ${target} VALUES (${index}, ${keys('OLD')}); ${touch} END`,
    );
  });
  return statements;
}

/** Statements dropping the TEMP capture objects (detach). */
export function dropCaptureStatements(tables: readonly ManagedTable[]): string[] {
  const statements = tables.flatMap((_, index) =>
    ['i', 'u', 'd'].map((op) => `DROP TRIGGER IF EXISTS temp.${quoteIdent(`${RECOVERY_PREFIX}c${index}_${op}`)}`),
  );
  return [...statements, `DROP TABLE IF EXISTS ${CAPTURE_TABLE}`];
}

/** Name of a persistent guard trigger. */
export function guardTriggerName(table: string, op: 'i' | 'u' | 'd'): string {
  return `${RECOVERY_PREFIX}guard_${op}_${table}`;
}

/**
 * Tables that get guard triggers: all managed tables except the runtime's own `_svc_*` bookkeeping,
 * which the runtime touches while opening (before recovery can attach). Those stay journaled, and a
 * write to them behind recovery's back still breaks the seal at the next attach.
 */
export function guardedTables(tables: readonly ManagedTable[]): ManagedTable[] {
  return tables.filter((table) => !table.name.startsWith('_svc_'));
}

/** Persistent BEFORE triggers that abort writes unless an attached, unfenced recovery answers the guard. */
export function guardStatements(tables: readonly ManagedTable[]): string[] {
  const events = { i: 'INSERT', u: 'UPDATE', d: 'DELETE' } as const;
  return guardedTables(tables).flatMap((table) =>
    (['i', 'u', 'd'] as const).map(
      (op) =>
        `CREATE TRIGGER IF NOT EXISTS main.${quoteIdent(guardTriggerName(table.name, op))} BEFORE ${events[op]} ON ${quoteIdent(table.name)} ` +
        `WHEN ${GUARD_FUNCTION}() IS NOT ${GUARD_OPEN} BEGIN SELECT CASE ${GUARD_FUNCTION}() WHEN ${GUARD_FENCED} ` +
        `THEN RAISE(ABORT, 'SVC_RECOVERY_FENCED: another writer touched this database; restore a verified epoch') ` +
        `ELSE RAISE(ABORT, 'SVC_RECOVERY_NOT_ATTACHED: attach point-in-time recovery before writing') END; END`,
    ),
  );
}

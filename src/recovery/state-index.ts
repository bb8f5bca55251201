// The in-memory index of every journaled row's digest and size: built by one full scan at attach
// (which is why rows per table and state bytes are bounded) and updated per commit.
import type BetterSqlite3 from 'better-sqlite3';
import { SvcError } from '../core/errors.js';
import { quoteIdent, type ManagedTable } from './managed-tables.js';
import { accumulate, rowDigestOfJson } from './state-seal.js';
import { encodeValue, type EncodedValue } from './value-codec.js';

/** At most 200,000 captured rows per table (docs/recovery.md, limits). */
export const MAX_ROWS_PER_TABLE = 200_000;

/** Digest and canonical size of one row. */
export interface RowState {
  readonly digest: bigint;
  readonly bytes: number;
}

/** Row states per table (keyed by the canonical JSON of the primary key), plus totals. */
export interface StateIndex {
  readonly rows: Map<string, RowState>[];
  accumulator: bigint;
  bytes: number;
}

/** Encode a raw row (read with safeIntegers) and return its canonical values, key and state. */
export function encodeRow(
  table: ManagedTable,
  keyPositions: readonly number[],
  raw: readonly unknown[],
): { values: EncodedValue[]; key: string; state: RowState } {
  const values = raw.map((value, i) => encodeValue(value, () => `${table.name}.${table.columns[i]}`));
  const json = JSON.stringify(values);
  const key = JSON.stringify(keyPositions.map((p) => values[p]));
  return { values, key, state: { digest: rowDigestOfJson(table.name, json), bytes: json.length + table.name.length } };
}

/** Positions of the key columns within the column list. */
export function keyPositionsOf(table: ManagedTable): number[] {
  return table.keys.map((key) => table.columns.indexOf(key));
}

/** Scan every managed table; throws when a limit is exceeded or a value cannot be journaled. */
export function scanState(db: BetterSqlite3.Database, tables: readonly ManagedTable[], maxStateBytes: number): StateIndex {
  const index: StateIndex = { rows: [], accumulator: 0n, bytes: 0 };
  for (const table of tables) {
    const positions = keyPositionsOf(table);
    const map = new Map<string, RowState>();
    const select = db
      .prepare(`SELECT ${table.columns.map(quoteIdent).join(', ')} FROM main.${quoteIdent(table.name)}`)
      .raw(true)
      .safeIntegers(true);
    for (const raw of select.iterate() as Iterable<unknown[]>) {
      const row = encodeRow(table, positions, raw);
      map.set(row.key, row.state);
      index.accumulator = accumulate(index.accumulator, row.state.digest, 1);
      index.bytes += row.state.bytes;
      if (map.size > MAX_ROWS_PER_TABLE)
        throw new SvcError('SVC_RECOVERY_TOO_MANY_ROWS', `Table ${table.name} has more than ${MAX_ROWS_PER_TABLE} rows.`, { details: { table: table.name } });
      if (index.bytes > maxStateBytes)
        throw new SvcError('SVC_RECOVERY_STATE_TOO_LARGE', `The database state exceeds maxStateBytes (${maxStateBytes}).`, { details: { maxStateBytes } });
    }
    index.rows.push(map);
  }
  return index;
}

// The before-commit hook: turns the rows the capture triggers recorded into one encrypted, hash-linked
// journal entry with a new seal, written in the app's own transaction. Throwing here rolls back both.
import type BetterSqlite3 from 'better-sqlite3';
import type { Clock } from '../core/clock.js';
import { SvcError } from '../core/errors.js';
import { CAPTURE_TABLE } from './capture-triggers.js';
import { sealEntry, type TableChanges } from './journal-entry.js';
import { quoteIdent, schemaHash, type ManagedTable } from './managed-tables.js';
import { JOURNAL_TABLE } from './recovery-store.js';
import { encodeRow, keyPositionsOf, MAX_ROWS_PER_TABLE, type RowState, type StateIndex } from './state-index.js';
import { accumulate, accumulatorHex, computeSeal } from './state-seal.js';
import { encodeValue, type EncodedValue } from './value-codec.js';

/** The newest committed journal position. */
export interface CommittedHead {
  readonly seq: number;
  readonly digest: string;
  readonly time: number;
}

/** Everything the hook needs, fixed at attach. */
export interface CaptureSettings {
  readonly db: BetterSqlite3.Database;
  readonly tables: readonly ManagedTable[];
  readonly index: StateIndex;
  readonly epochId: string;
  readonly entryKey: Buffer;
  readonly schemaHash: string;
  readonly head: CommittedHead;
  readonly clock: Clock;
  readonly maxTransactionBytes: number;
  readonly maxStateBytes: number;
}

interface Pending {
  readonly head: CommittedHead;
  readonly accumulator: bigint;
  readonly bytes: number;
  readonly updates: readonly [number, string, RowState | null][];
}

/** Captures commits into the journal and tracks the committed head, the state index and fencing. */
export class CommitCapture {
  private readonly s: CaptureSettings;
  private readonly selectRow: BetterSqlite3.Statement[];
  private readonly positions: number[][];
  private readonly readCapture: BetterSqlite3.Statement;
  private readonly clearCapture: BetterSqlite3.Statement;
  private readonly anyCaptured: BetterSqlite3.Statement;
  private readonly insertJournal: BetterSqlite3.Statement;
  private readonly pruneJournal: BetterSqlite3.Statement;
  // Read per commit as three statements: the pragma_* table-valued functions prepare an inner PRAGMA on
  // every step (about 2 µs each), a plain PRAGMA statement costs a tenth of that.
  private readonly newestSequence: BetterSqlite3.Statement<[], number | null>;
  private readonly dataVersion: BetterSqlite3.Statement<[], number>;
  private readonly schemaVersion: BetterSqlite3.Statement<[], number>;
  private head: CommittedHead;
  private pending: Pending | null = null;
  private lastDataVersion: number;
  private lastSchemaVersion: number;
  private prunedBelow = 0;
  /** Highest sequence safely in the repository (set by the exporter; entries below it may be pruned). */
  exportedThrough = 0;
  /** Why managed writes are fenced, or null. Once set it never clears: the seal is never overwritten. */
  fence: string | null = null;
  /** Receives errors of the follow-up transaction that journals writes made outside managed transactions. */
  onSweepError: (error: unknown) => void = () => undefined;
  private dirty = false;
  private sweepScheduled = false;

  constructor(settings: CaptureSettings) {
    this.s = settings;
    const { db } = settings;
    this.head = settings.head;
    this.positions = settings.tables.map(keyPositionsOf);
    this.selectRow = settings.tables.map((table) =>
      db
        .prepare(
          `SELECT ${table.columns.map(quoteIdent).join(', ')} FROM main.${quoteIdent(table.name)} WHERE ${table.keys.map((k) => `${quoteIdent(k)} = ?`).join(' AND ')}`,
        )
        .raw(true)
        .safeIntegers(true),
    );
    this.readCapture = db.prepare(`SELECT * FROM ${CAPTURE_TABLE}`).raw(true).safeIntegers(true);
    this.clearCapture = db.prepare(`DELETE FROM ${CAPTURE_TABLE}`);
    this.anyCaptured = db.prepare(`SELECT 1 FROM ${CAPTURE_TABLE} LIMIT 1`).pluck();
    this.insertJournal = db.prepare(`INSERT INTO main.${JOURNAL_TABLE} (sequence, time, digest, acc, seal, line) VALUES (?, ?, ?, ?, ?, ?)`);
    this.pruneJournal = db.prepare(`DELETE FROM main.${JOURNAL_TABLE} WHERE sequence < ?`);
    this.newestSequence = db.prepare<[], number | null>(`SELECT max(sequence) FROM main.${JOURNAL_TABLE}`).pluck();
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.schemaVersion = db.prepare<[], number>('PRAGMA main.schema_version').pluck();
    this.lastDataVersion = this.dataVersion.get()!;
    this.lastSchemaVersion = this.schemaVersion.get()!;
  }

  /** The newest committed head (settles the previous commit's outcome first when outside a transaction). */
  committed(): CommittedHead {
    if (this.s.db.open && !this.s.db.inTransaction && this.pending !== null) this.settle(this.newestSequence.get() ?? 0);
    return this.head;
  }

  /** Set once the repository is ready: before that no entry may commit (it could outlive a missing base). */
  private ready = false;

  /** Whether managed writes are accepted. */
  get isReady(): boolean {
    return this.ready;
  }

  /** Accept managed writes from now on, and journal any autocommit write that waited. */
  markReady(): void {
    this.ready = true;
    if (this.dirty && !this.sweepScheduled) {
      this.sweepScheduled = true;
      queueMicrotask(this.sweep);
    }
  }

  /** The hook registered with onBeforeCommit. */
  readonly hook = (): void => {
    if (!this.ready) throw new SvcError('SVC_RECOVERY_NOT_ATTACHED', 'Point-in-time recovery is still preparing its repository; retry shortly.');
    if (this.fence !== null) throw this.fencedError();
    this.settle(this.newestSequence.get() ?? 0);
    if (this.fence !== null) throw this.fencedError();
    this.detectForeignWriter(this.dataVersion.get()!, this.schemaVersion.get()!);
    const captured = this.readCapture.all() as unknown[][];
    this.dirty = false;
    if (captured.length === 0) return;
    this.clearCapture.run();
    this.record(captured);
  };

  /** Called by the capture triggers (through an SQL function) for every captured row. */
  readonly touched = (): null => {
    this.dirty = true;
    if (!this.sweepScheduled) {
      this.sweepScheduled = true;
      queueMicrotask(this.sweep);
    }
    return null;
  };

  /**
   * Writes made outside a managed transaction (autocommit statements such as the runtime's session rows)
   * have no before-commit hook: journal them in a follow-up transaction right after they commit.
   */
  private readonly sweep = (): void => {
    this.sweepScheduled = false;
    if (!this.dirty || !this.s.db.open || this.detached || !this.ready) return;
    if (this.s.db.inTransaction) {
      this.sweepScheduled = true;
      setImmediate(this.sweep);
      return;
    }
    this.dirty = false;
    // Rows of a rolled-back transaction are gone with it; only committed orphans need a transaction.
    if (this.anyCaptured.get() === undefined) return;
    try {
      this.s.db.transaction(() => this.hook()).immediate();
    } catch (error) {
      this.fenceWith(`a write outside a managed transaction could not be journaled (${(error as Error).message})`);
      this.onSweepError(error);
    }
  };

  /** Stop sweeping (detach). */
  detached = false;

  /** Fence managed writes for good (foreign writer, schema change). */
  fenceWith(reason: string): void {
    if (this.fence === null) this.fence = reason;
  }

  private fencedError(): SvcError {
    return new SvcError('SVC_RECOVERY_FENCED', `Managed writes are fenced: ${this.fence}. Restore a verified epoch.`, { details: { reason: this.fence } });
  }

  /** Apply or drop the previous commit's pending index updates depending on whether it committed. */
  private settle(newest: number): void {
    const pending = this.pending;
    this.pending = null;
    if (pending === null) {
      if (newest !== this.head.seq) this.fenceWith(`the journal head moved to ${newest} outside recovery`);
      return;
    }
    if (newest === pending.head.seq) {
      for (const [table, key, state] of pending.updates) {
        if (state === null) this.s.index.rows[table]!.delete(key);
        else this.s.index.rows[table]!.set(key, state);
      }
      this.s.index.accumulator = pending.accumulator;
      this.s.index.bytes = pending.bytes;
      this.head = pending.head;
    } else if (newest !== this.head.seq) {
      this.fenceWith(`the journal head moved to ${newest} outside recovery`);
    }
  }

  private detectForeignWriter(dataVersion: number, schemaVersion: number): void {
    if (dataVersion !== this.lastDataVersion) {
      this.fenceWith('another connection committed to the database');
      throw this.fencedError();
    }
    if (schemaVersion !== this.lastSchemaVersion) {
      if (schemaHash(this.s.db) !== this.s.schemaHash) {
        this.fenceWith('the schema changed inside the epoch (rotate the epoch for migrations)');
        throw this.fencedError();
      }
      this.lastSchemaVersion = schemaVersion;
    }
  }

  private record(captured: unknown[][]): void {
    const { tables, index } = this.s;
    const touched = new Map<number, Map<string, unknown[]>>();
    for (const row of captured) {
      const table = Number(row[0]);
      const keys = row.slice(1, 1 + tables[table]!.keys.length);
      if (keys.some((k) => k === null)) {
        throw new SvcError('SVC_RECOVERY_TABLE_UNSUPPORTED', `Table ${tables[table]!.name} received a null primary-key value.`, {
          details: { table: tables[table]!.name, reason: 'null key' },
        });
      }
      const keyJson = JSON.stringify(keys.map((k, i) => encodeValue(k, () => `${tables[table]!.name}.${tables[table]!.keys[i]}`)));
      let map = touched.get(table);
      if (map === undefined) touched.set(table, (map = new Map()));
      map.set(keyJson, keys);
    }
    let accumulator = index.accumulator;
    let bytes = index.bytes;
    const updates: [number, string, RowState | null][] = [];
    const changes: TableChanges[] = [];
    for (const table of [...touched.keys()].sort((a, b) => a - b)) {
      const definition = tables[table]!;
      const rows = index.rows[table]!;
      let count = rows.size;
      const deletes: EncodedValue[][] = [];
      const upserts: EncodedValue[][] = [];
      for (const [keyJson, keys] of touched.get(table)!) {
        const old = rows.get(keyJson);
        const raw = this.selectRow[table]!.get(...keys) as unknown[] | undefined;
        if (raw === undefined) {
          if (old === undefined) continue;
          deletes.push(JSON.parse(keyJson) as EncodedValue[]);
          accumulator = accumulate(accumulator, old.digest, -1);
          bytes -= old.bytes;
          count -= 1;
          updates.push([table, keyJson, null]);
          continue;
        }
        const row = encodeRow(definition, this.positions[table]!, raw);
        if (old !== undefined && old.digest === row.state.digest) continue;
        if (old !== undefined) {
          accumulator = accumulate(accumulator, old.digest, -1);
          bytes -= old.bytes;
        } else count += 1;
        accumulator = accumulate(accumulator, row.state.digest, 1);
        bytes += row.state.bytes;
        upserts.push(row.values);
        updates.push([table, row.key, row.state]);
      }
      if (count > MAX_ROWS_PER_TABLE)
        throw new SvcError('SVC_RECOVERY_TOO_MANY_ROWS', `Table ${definition.name} would hold more than ${MAX_ROWS_PER_TABLE} rows.`, {
          details: { table: definition.name },
        });
      if (deletes.length > 0 || upserts.length > 0) changes.push({ t: definition.name, c: definition.columns, d: deletes, u: upserts });
    }
    if (changes.length === 0) return;
    if (bytes > this.s.maxStateBytes)
      throw new SvcError('SVC_RECOVERY_STATE_TOO_LARGE', `The journaled state would exceed maxStateBytes (${this.s.maxStateBytes}).`, {
        details: { maxStateBytes: this.s.maxStateBytes },
      });
    const seq = this.head.seq + 1;
    const acc = accumulatorHex(accumulator);
    const seal = computeSeal({ epochId: this.s.epochId, sequence: seq, previous: this.head.digest, schemaHash: this.s.schemaHash, accumulator: acc });
    const payload = JSON.stringify({ seal, acc, changes });
    const payloadBytes = Buffer.byteLength(payload);
    if (payloadBytes > this.s.maxTransactionBytes) {
      throw new SvcError(
        'SVC_RECOVERY_TRANSACTION_TOO_LARGE',
        `The transaction's journal entry (${payloadBytes} bytes) exceeds maxTransactionBytes (${this.s.maxTransactionBytes}).`,
        {
          details: { bytes: payloadBytes, maxTransactionBytes: this.s.maxTransactionBytes },
        },
      );
    }
    const time = Math.max(Math.floor(this.s.clock.now()), this.head.time);
    const { line, digest } = sealEntry({ epoch: this.s.epochId, seq, time, prev: this.head.digest }, payload, this.s.entryKey);
    this.insertJournal.run(seq, time, digest, acc, seal, line);
    if (this.exportedThrough - this.prunedBelow >= 256) {
      this.pruneJournal.run(this.exportedThrough);
      this.prunedBelow = this.exportedThrough;
    }
    this.pending = { head: { seq, digest, time }, accumulator, bytes, updates };
  }
}

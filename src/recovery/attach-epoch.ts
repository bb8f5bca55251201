// The synchronous half of attaching: begin a new epoch on a database without recovery metadata, or
// verify a journal-bearing database against its seal before any write is accepted.
import { existsSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import type { Clock } from '../core/clock.js';
import { SvcError } from '../core/errors.js';
import type { IdGenerator } from '../core/ids.js';
import { guardStatements, guardTriggerName, guardedTables } from './capture-triggers.js';
import type { CommittedHead } from './commit-capture.js';
import { entryDigest, parseEntryLine } from './journal-entry.js';
import { inspectManagedTables, schemaHash, type ManagedTable } from './managed-tables.js';
import { deriveRecoveryKeys, RECOVERY_FORMAT, type RecoveryKeys } from './recovery-keys.js';
import { insertEpochState, readEpochState, readNewestJournalRow, STORE_STATEMENTS, type EpochState } from './recovery-store.js';
import { repositoryPaths } from './repository.js';
import { scanState, type StateIndex } from './state-index.js';
import { accumulatorHex, computeSeal, genesisDigest } from './state-seal.js';

/** The verified database side of an epoch. */
export interface AttachedEpoch {
  readonly state: EpochState;
  readonly keys: RecoveryKeys;
  readonly tables: readonly ManagedTable[];
  readonly index: StateIndex;
  readonly schemaHash: string;
  readonly head: CommittedHead;
  /** Serialized database at sequence 0, when the repository still has to be created. */
  readonly baseSnapshot: Buffer | null;
}

/** Begin or verify the epoch of `db`; throws SVC_RECOVERY_SEAL_INVALID / _KEY_INVALID / _TABLE_UNSUPPORTED. */
export function attachEpoch(db: BetterSqlite3.Database, directory: string, key: Buffer, maxStateBytes: number, clock: Clock, ids: IdGenerator): AttachedEpoch {
  if (db.inTransaction) throw new SvcError('SVC_RECOVERY_OPTIONS_INVALID', 'Attach recovery outside a transaction.');
  const existing = readEpochState(db);
  const repositoryExists = existsSync(repositoryPaths(directory).epoch);
  if (existing === null) {
    if (repositoryExists)
      throw new SvcError('SVC_RECOVERY_REPOSITORY_MISMATCH', `${directory} already holds an epoch; a new epoch needs its own directory.`, {
        details: { directory },
      });
    return beginEpoch(db, key, maxStateBytes, clock, ids);
  }
  if (existing.format !== RECOVERY_FORMAT)
    throw new SvcError('SVC_RECOVERY_SEAL_INVALID', `Unknown recovery format ${existing.format}.`, { details: { reason: 'format' } });
  const keys = deriveRecoveryKeys(key, existing.epoch_id);
  if (keys.keyCheck !== existing.key_check)
    throw new SvcError('SVC_RECOVERY_KEY_INVALID', 'The encryption key is not the key this database’s epoch was started with.');
  const tables = inspectManagedTables(db);
  const hash = schemaHash(db);
  const invalid = (reason: string): never => {
    throw new SvcError(
      'SVC_RECOVERY_SEAL_INVALID',
      `The database does not match its recovery seal (${reason}); an unexpected writer changed it. Restore a verified epoch.`,
      { details: { reason } },
    );
  };
  if (hash !== existing.schema_hash) invalid('schema changed');
  const newest = readNewestJournalRow(db);
  let head: CommittedHead;
  let expectedAcc: string;
  if (newest === undefined) {
    head = { seq: 0, digest: existing.genesis, time: existing.created_at };
    expectedAcc = existing.base_acc;
    if (computeSeal({ epochId: existing.epoch_id, sequence: 0, previous: '', schemaHash: hash, accumulator: expectedAcc }) !== existing.base_seal)
      invalid('base seal');
  } else {
    const envelope = parseEntryLine(newest.line);
    if (envelope === null || envelope.seq !== newest.sequence || entryDigest(newest.line) !== newest.digest) invalid('journal head');
    const seal = computeSeal({ epochId: existing.epoch_id, sequence: newest.sequence, previous: envelope!.prev, schemaHash: hash, accumulator: newest.acc });
    if (seal !== newest.seal) invalid('seal');
    head = { seq: newest.sequence, digest: newest.digest, time: newest.time };
    expectedAcc = newest.acc;
  }
  const index = scanState(db, tables, maxStateBytes);
  if (accumulatorHex(index.accumulator) !== expectedAcc) invalid('rows changed');
  ensureGuards(db, tables);
  const baseSnapshot = !repositoryExists && head.seq === 0 ? db.serialize() : null;
  return { state: existing, keys, tables, index, schemaHash: hash, head, baseSnapshot };
}

function beginEpoch(db: BetterSqlite3.Database, key: Buffer, maxStateBytes: number, clock: Clock, ids: IdGenerator): AttachedEpoch {
  const tables = inspectManagedTables(db);
  const index = scanState(db, tables, maxStateBytes);
  const hash = schemaHash(db);
  const epochId = ids('epoch');
  const keys = deriveRecoveryKeys(key, epochId);
  const baseAcc = accumulatorHex(index.accumulator);
  const baseSeal = computeSeal({ epochId, sequence: 0, previous: '', schemaHash: hash, accumulator: baseAcc });
  const state: EpochState = {
    format: RECOVERY_FORMAT,
    epoch_id: epochId,
    created_at: Math.floor(clock.now()),
    key_check: keys.keyCheck,
    schema_hash: hash,
    base_acc: baseAcc,
    base_seal: baseSeal,
    genesis: genesisDigest(epochId, baseSeal),
  };
  db.transaction(() => {
    for (const statement of STORE_STATEMENTS) db.exec(statement);
    insertEpochState(db, state);
    for (const statement of guardStatements(tables)) db.exec(statement);
  }).immediate();
  return { state, keys, tables, index, schemaHash: hash, head: { seq: 0, digest: state.genesis, time: state.created_at }, baseSnapshot: db.serialize() };
}

/** Recreate missing guard triggers (they are recovery objects, outside the schema hash). */
function ensureGuards(db: BetterSqlite3.Database, tables: readonly ManagedTable[]): void {
  const names = new Set(
    db
      .prepare<[], { name: string }>(`SELECT name FROM main.sqlite_schema WHERE type = 'trigger'`)
      .all()
      .map((row) => row.name),
  );
  const complete = guardedTables(tables).every((table) => (['i', 'u', 'd'] as const).every((op) => names.has(guardTriggerName(table.name, op))));
  if (complete) return;
  db.transaction(() => {
    for (const statement of guardStatements(tables)) db.exec(statement);
  }).immediate();
}

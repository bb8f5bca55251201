// openPointInTimeRecovery(database, options): attach the journal to the runtime database's single
// connection, make sure the repository exists, and export committed entries on an interval and on flush().
import type BetterSqlite3 from 'better-sqlite3';
import { systemClock, type Clock } from '../core/clock.js';
import { SvcError } from '../core/errors.js';
import { randomId } from '../core/ids.js';
import { attachEpoch, type AttachedEpoch } from './attach-epoch.js';
import { captureStatements, dropCaptureStatements, GUARD_FENCED, GUARD_FUNCTION, GUARD_OPEN, TOUCH_FUNCTION } from './capture-triggers.js';
import { CommitCapture } from './commit-capture.js';
import { JournalExporter } from './journal-exporter.js';
import { RECOVERY_FORMAT } from './recovery-keys.js';
import { checkOpenOptions, type PointInTimeRecoveryOptions, type RecoveryDatabase } from './recovery-options.js';
import {
  documentVerifies,
  encryptBase,
  epochDocumentSchema,
  headDocumentSchema,
  listSegments,
  publishedSegments,
  readSignedDocument,
  removeUnpublished,
  repositoryPaths,
  sha256Hex,
  writeBase,
  writeSignedDocument,
  type EpochDocument,
} from './repository.js';

/** What status() reports. */
export interface RecoveryStatus {
  readonly epochId: string;
  /** Newest sequence committed to the database's journal. */
  readonly committedThrough: number;
  /** Newest sequence durably in the repository (fsynced and renamed). */
  readonly exportedThrough: number;
  /** Why managed writes are fenced, or null. */
  readonly fenced: string | null;
  readonly closed: boolean;
}

/** An attached point-in-time recovery. */
export interface PointInTimeRecovery {
  /** Export every committed entry now; resolves with the status after head.json is durable. */
  flush(): Promise<RecoveryStatus>;
  status(): RecoveryStatus;
  /** Flush, stop exporting and detach; managed writes are rejected until recovery is attached again. */
  close(): Promise<void>;
}

// SQL functions are registered once per connection and forward to whichever recovery is attached now.
interface ConnectionFunctions {
  answer: () => number;
  touched: () => null;
}
const connections = new WeakMap<BetterSqlite3.Database, ConnectionFunctions>();

function functionsFor(db: BetterSqlite3.Database): ConnectionFunctions {
  let fns = connections.get(db);
  if (fns === undefined) {
    const created: ConnectionFunctions = { answer: () => 0, touched: () => null };
    db.function(GUARD_FUNCTION, { deterministic: false }, () => created.answer());
    db.function(TOUCH_FUNCTION, { deterministic: false }, () => created.touched());
    connections.set(db, created);
    fns = created;
  }
  return fns;
}

const attached = new WeakSet<BetterSqlite3.Database>();

/** Attach point-in-time recovery to a runtime database (its one writer: docs/recovery.md). */
export async function openPointInTimeRecovery(database: RecoveryDatabase, options: PointInTimeRecoveryOptions): Promise<PointInTimeRecovery> {
  const settings = checkOpenOptions(options);
  const clock = options.clock ?? systemClock;
  const db = database.sqlite;
  if (attached.has(db)) throw new SvcError('SVC_RECOVERY_OPTIONS_INVALID', 'Recovery is already attached to this database.');
  const guard = functionsFor(db);
  const epoch = attachEpoch(db, settings.directory, settings.encryptionKey, settings.maxStateBytes, clock, options.ids ?? randomId);
  for (const statement of captureStatements(epoch.tables)) db.exec(statement);
  const capture = new CommitCapture({
    db,
    tables: epoch.tables,
    index: epoch.index,
    epochId: epoch.state.epoch_id,
    entryKey: epoch.keys.entry,
    schemaHash: epoch.schemaHash,
    head: epoch.head,
    clock,
    maxTransactionBytes: settings.maxTransactionBytes,
    maxStateBytes: settings.maxStateBytes,
  });
  const unsubscribe = database.onBeforeCommit(capture.hook);
  // The guard opens only once the repository is ready (see CommitCapture.markReady).
  guard.answer = () => (capture.fence !== null ? GUARD_FENCED : capture.isReady ? GUARD_OPEN : 0);
  guard.touched = capture.touched;
  const onExportError = options.onExportError ?? ((error: unknown) => console.error('svc recovery: export failed', error));
  capture.onSweepError = onExportError;
  attached.add(db);
  let closed = false;
  const detach = (): void => {
    closed = true;
    unsubscribe();
    guard.answer = () => 0;
    guard.touched = () => null;
    capture.detached = true;
    attached.delete(db);
    if (db.open) for (const statement of dropCaptureStatements(epoch.tables)) db.exec(statement);
  };
  let exporter: JournalExporter;
  try {
    exporter = await prepareRepository(db, settings.directory, epoch, clock);
  } catch (error) {
    detach();
    throw error;
  }
  capture.exportedThrough = exporter.exportedThrough;
  capture.markReady();
  const status = (): RecoveryStatus => ({
    epochId: epoch.state.epoch_id,
    committedThrough: capture.committed().seq,
    exportedThrough: exporter.exportedThrough,
    fenced: capture.fence,
    closed,
  });
  const flush = async (): Promise<RecoveryStatus> => {
    if (db.open) await exporter.export(capture.committed().seq);
    capture.exportedThrough = exporter.exportedThrough;
    return status();
  };
  const timer = settings.exportIntervalMs === false ? undefined : setInterval(() => void flush().catch(onExportError), settings.exportIntervalMs);
  timer?.unref();
  return {
    flush,
    status,
    async close() {
      if (closed) return;
      if (timer !== undefined) clearInterval(timer);
      try {
        await flush();
      } finally {
        detach();
      }
    },
  };
}

/** Create the repository of a new epoch, or check an existing one belongs to this database. */
async function prepareRepository(db: BetterSqlite3.Database, directory: string, epoch: AttachedEpoch, clock: Clock): Promise<JournalExporter> {
  const paths = repositoryPaths(directory);
  const { state, keys } = epoch;
  const mismatch = (why: string): never => {
    throw new SvcError('SVC_RECOVERY_REPOSITORY_MISMATCH', `${directory}: ${why}.`, { details: { directory } });
  };
  const found = await readSignedDocument(paths.epoch, epochDocumentSchema);
  if (found === null) {
    if (epoch.baseSnapshot === null) mismatch('epoch.json is missing but the journal has entries; rotate to a new epoch');
    const sealed = encryptBase(epoch.baseSnapshot!, keys.base, state.epoch_id);
    await writeBase(directory, sealed);
    await writeSignedDocument(
      paths.head,
      { format: RECOVERY_FORMAT, epochId: state.epoch_id, exportedThrough: 0, headDigest: state.genesis, updatedAt: Math.floor(clock.now()) },
      keys.meta,
    );
    const document: EpochDocument = {
      format: RECOVERY_FORMAT,
      epochId: state.epoch_id,
      createdAt: state.created_at,
      keyCheck: keys.keyCheck,
      schemaHash: state.schema_hash,
      baseAccumulator: state.base_acc,
      baseSeal: state.base_seal,
      genesis: state.genesis,
      base: { file: 'base/snapshot.svcb', sha256: sha256Hex(sealed), bytes: sealed.length },
    };
    await writeSignedDocument(paths.epoch, document, keys.meta);
  } else {
    if (found.document.epochId !== state.epoch_id) mismatch(`it holds epoch ${found.document.epochId}, the database is in epoch ${state.epoch_id}`);
    if (found.document.keyCheck !== keys.keyCheck) throw new SvcError('SVC_RECOVERY_KEY_INVALID', 'The encryption key does not match the repository.');
    if (!documentVerifies(found.document, found.mac, keys.meta))
      throw new SvcError('SVC_RECOVERY_TAMPERED', 'epoch.json failed authentication.', { details: { sequence: 0, file: 'epoch.json' } });
  }
  const head = await readSignedDocument(paths.head, headDocumentSchema);
  if (head === null) return mismatch('head.json is missing');
  if (head.document.epochId !== state.epoch_id || !documentVerifies(head.document, head.mac, keys.meta)) {
    throw new SvcError('SVC_RECOVERY_TAMPERED', 'head.json failed authentication.', { details: { file: 'head.json' } });
  }
  if (head.document.exportedThrough > epoch.head.seq)
    mismatch(`the repository is ahead of the database (${head.document.exportedThrough} > ${epoch.head.seq}); the database was replaced`);
  await removeUnpublished(directory, head.document.exportedThrough);
  const newestSegment = publishedSegments(await listSegments(directory), head.document.exportedThrough).at(-1) ?? null;
  return new JournalExporter({
    db,
    directory,
    epochId: state.epoch_id,
    metaKey: keys.meta,
    clock,
    exportedThrough: head.document.exportedThrough,
    newestSegment,
  });
}

// restorePointInTime: authenticate the base and every exported entry, replay up to the target into a
// temp file beside the destination, prove the result against the recorded seal, strip journal metadata,
// then rename into place. Any failure leaves the destination exactly as it was.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, writeFileSync } from 'node:fs';
import { readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { fsyncDirectory } from '../core/atomic-write.js';
import { SvcError } from '../core/errors.js';
import { checkTarget, createChainVerifier, entryWithinTarget, type RestoreTarget } from './chain.js';
import { lockDestination } from './destination-lock.js';
import { inspectManagedTables, isRecoveryObject, quoteIdent, schemaHash } from './managed-tables.js';
import { deriveRecoveryKeys } from './recovery-keys.js';
import { checkRestoreOptions, type RestorePointInTimeOptions } from './recovery-options.js';
import {
  decryptBase,
  documentVerifies,
  epochDocumentSchema,
  headDocumentSchema,
  listSegments,
  publishedSegments,
  readSegmentLines,
  readSignedDocument,
  repositoryPaths,
  sha256Hex,
} from './repository.js';
import { Replayer } from './replay.js';
import { scanState } from './state-index.js';
import { accumulatorHex, computeSeal } from './state-seal.js';

/** What a restore produced. */
export interface RestoreResult {
  readonly epochId: string;
  /** Sequence the restored database reflects (0 = the base snapshot). */
  readonly sequence: number;
  /** Commit time of that sequence (the base time for 0). */
  readonly time: number;
  /** Entries authenticated (all exported ones, not only those replayed). */
  readonly verifiedThrough: number;
  readonly targetPath: string;
}

const COMMIT_EVERY = 5_000;

/** Restore a recovery repository to an exact committed boundary into a stopped destination. */
export async function restorePointInTime(options: RestorePointInTimeOptions): Promise<RestoreResult> {
  const o = checkRestoreOptions(options);
  const target: RestoreTarget = o.throughSequence !== undefined ? { throughSequence: o.throughSequence } : { asOf: o.asOf! };
  const paths = repositoryPaths(o.directory);
  const epochFile = await readSignedDocument(paths.epoch, epochDocumentSchema);
  if (epochFile === null) throw new SvcError('SVC_RECOVERY_REPOSITORY_INVALID', `${o.directory} has no epoch.json.`, { details: { file: 'epoch.json' } });
  const epoch = epochFile.document;
  const keys = deriveRecoveryKeys(o.encryptionKey, epoch.epochId);
  if (keys.keyCheck !== epoch.keyCheck) throw new SvcError('SVC_RECOVERY_KEY_INVALID', 'The encryption key is not the key this repository was written with.');
  if (!documentVerifies(epoch, epochFile.mac, keys.meta))
    throw new SvcError('SVC_RECOVERY_TAMPERED', 'epoch.json failed authentication.', { details: { sequence: 0, file: 'epoch.json' } });
  const headFile = await readSignedDocument(paths.head, headDocumentSchema);
  if (headFile === null) throw new SvcError('SVC_RECOVERY_REPOSITORY_INVALID', `${o.directory} has no head.json.`, { details: { file: 'head.json' } });
  const head = headFile.document;
  if (head.epochId !== epoch.epochId || !documentVerifies(head, headFile.mac, keys.meta)) {
    throw new SvcError('SVC_RECOVERY_TAMPERED', 'head.json failed authentication.', { details: { sequence: head.exportedThrough, file: 'head.json' } });
  }
  checkTarget(target, head.exportedThrough, epoch.createdAt);

  const lock = lockDestination(o.targetPath);
  const temp = join(dirname(o.targetPath), `.${basename(o.targetPath)}.restore-${randomBytes(6).toString('hex')}.tmp`);
  try {
    const sealed = await readFile(paths.base).catch(() => null);
    const plain = sealed !== null && sha256Hex(sealed) === epoch.base.sha256 ? decryptBase(sealed, keys.base, epoch.epochId) : null;
    if (plain === null)
      throw new SvcError('SVC_RECOVERY_TAMPERED', 'The base snapshot is missing or failed authentication.', {
        details: { sequence: 0, file: 'base/snapshot.svcb' },
      });
    writeFileSync(temp, plain, { mode: 0o600, flag: 'wx' });
    const db = new Database(temp);
    let reached: { seq: number; time: number; previous: string; acc: string; seal: string };
    try {
      // The temp file is private and deleted on any failure, and fsynced once before it is published, so
      // replay needs neither a rollback journal nor per-commit fsyncs.
      db.pragma('journal_mode = OFF');
      db.pragma('synchronous = OFF');
      const replayer = new Replayer(db);
      const verifier = createChainVerifier({
        epochId: epoch.epochId,
        entryKey: keys.entry,
        genesis: epoch.genesis,
        baseTime: epoch.createdAt,
        exportedThrough: head.exportedThrough,
        headDigest: head.headDigest,
      });
      reached = { seq: 0, time: epoch.createdAt, previous: '', acc: epoch.baseAccumulator, seal: epoch.baseSeal };
      let lastDigest = epoch.genesis;
      db.exec('BEGIN');
      for (const segment of publishedSegments(await listSegments(o.directory), head.exportedThrough)) {
        for (const line of await readSegmentLines(o.directory, segment)) {
          const entry = verifier.push(line);
          if (entryWithinTarget(target, entry)) {
            replayer.apply(entry.seq, entry.payload.changes);
            reached = { seq: entry.seq, time: entry.time, previous: lastDigest, acc: entry.payload.acc, seal: entry.payload.seal };
            if (entry.seq % COMMIT_EVERY === 0) db.exec('COMMIT; BEGIN');
          }
          lastDigest = entry.digest;
        }
      }
      verifier.finish();
      db.exec('COMMIT');
      replayer.restoreTriggers();
      proveState(db, epoch.epochId, epoch.schemaHash, reached);
      stripMetadata(db);
      db.pragma('journal_mode = DELETE');
      const integrity = db.pragma('integrity_check', { simple: true });
      if (integrity !== 'ok') throw new SvcError('SVC_RECOVERY_VERIFY_FAILED', `integrity_check of the restored database failed: ${String(integrity)}.`);
    } finally {
      db.close();
    }
    fsyncFile(temp);
    lock.release();
    if (hasWalFiles(o.targetPath))
      throw new SvcError('SVC_RECOVERY_DESTINATION_BUSY', `${o.targetPath} was opened during the restore; not replacing it.`, {
        details: { targetPath: o.targetPath },
      });
    await rename(temp, o.targetPath);
    await fsyncDirectory(dirname(o.targetPath));
    return { epochId: epoch.epochId, sequence: reached.seq, time: reached.time, verifiedThrough: head.exportedThrough, targetPath: o.targetPath };
  } catch (error) {
    await rm(temp, { force: true });
    for (const suffix of ['-journal', '-wal', '-shm']) await rm(`${temp}${suffix}`, { force: true });
    throw error;
  } finally {
    lock.release();
  }
}

/** The replayed rows and schema must give exactly the seal recorded for the target sequence. */
function proveState(
  db: Database.Database,
  epochId: string,
  expectedSchema: string,
  reached: { seq: number; previous: string; acc: string; seal: string },
): void {
  const hash = schemaHash(db);
  const acc = accumulatorHex(scanState(db, inspectManagedTables(db), Number.MAX_SAFE_INTEGER).accumulator);
  const seal = computeSeal({ epochId, sequence: reached.seq, previous: reached.previous, schemaHash: hash, accumulator: acc });
  if (hash !== expectedSchema || acc !== reached.acc || seal !== reached.seal) {
    throw new SvcError('SVC_RECOVERY_VERIFY_FAILED', `The replayed database does not match the seal of sequence ${reached.seq}.`, {
      details: { sequence: reached.seq },
    });
  }
}

/** Drop every recovery table and trigger: the restored database carries no journal metadata. */
function stripMetadata(db: Database.Database): void {
  const objects = db
    .prepare<[], { type: string; name: string }>(`SELECT type, name FROM main.sqlite_schema WHERE type IN ('table', 'trigger')`)
    .all()
    .filter((o) => isRecoveryObject(o.name));
  db.transaction(() => {
    for (const object of objects.filter((o) => o.type === 'trigger')) db.exec(`DROP TRIGGER main.${quoteIdent(object.name)}`);
    for (const object of objects.filter((o) => o.type === 'table')) db.exec(`DROP TABLE main.${quoteIdent(object.name)}`);
  })();
  db.exec('VACUUM');
}

function hasWalFiles(path: string): boolean {
  return [`${path}-wal`, `${path}-shm`].some((file) => {
    try {
      closeSync(openSync(file, 'r'));
      return true;
    } catch {
      return false;
    }
  });
}

function fsyncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

// Uploads: a reservation holds quota; chunks append at the durable offset only (offset-checked, one writer);
// completion verifies length, SHA-256, type and image signature, then publishes a new generation in one
// catalog transaction (the prior generation stays current until then and goes to the garbage ledger).
import { createHash, type Hash } from 'node:crypto';
import { Readable } from 'node:stream';
import { RuntimeError } from '../errors.js';
import { definitionOf, partitionOf, checkKey, toInfo, type BucketContext, type ObjectInfo } from './bucket-context.js';
import { signCapability } from './capability.js';
import type { ReservationRow } from './catalog.js';
import { SNIFF_BYTES, checkDeclaredType, verifyContent } from './content-sniff.js';
import { effectiveMaxObjectBytes, quotaViolation, reservationFor } from './effective-limits.js';

/** Start an upload. `ifSha256`: compare-and-set on the current object ('' = the key must not exist yet). */
export interface CreateUploadInput {
  bucket: string;
  owner?: string | null;
  key: string;
  length: number;
  contentType: string;
  sha256?: string | null;
  ifSha256?: string | null;
  /** Reservation and capability lifetime (default the manager's, at most 24 h). */
  ttlMs?: number;
}

/** A reservation as handed to the uploader: the upload capability authorizes HEAD/PATCH/DELETE on it. */
export interface UploadTicket {
  readonly id: string;
  readonly bucket: string;
  readonly key: string;
  readonly length: number;
  readonly offset: number;
  readonly expiresAt: number;
  readonly capability: string;
  /** Path of the tus upload URL (`{prefix}/buckets/{bucket}/uploads/{capability}`). */
  readonly path: string;
}

/** A chunk's optional tus checksum (`Upload-Checksum`). */
export interface ChunkChecksum {
  algorithm: 'sha1' | 'sha256';
  digest: Buffer;
}

/** Result of a chunk: the new durable offset, and the object once the last byte made it complete. */
export interface ChunkResult {
  readonly offset: number;
  readonly object: ObjectInfo | null;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** Reserve quota and open staging for an upload. */
export async function createUpload(ctx: BucketContext, input: CreateUploadInput): Promise<UploadTicket> {
  const definition = definitionOf(ctx, input.bucket);
  const owner = partitionOf(definition, input.owner);
  const key = checkKey(input.key);
  const contentType = checkDeclaredType(input.contentType, definition);
  if (!Number.isSafeInteger(input.length) || input.length < 0)
    throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', 'Upload length must be a whole number of bytes.');
  const max = effectiveMaxObjectBytes(definition, ctx.deployment);
  if (input.length > max) throw new RuntimeError('SVC_BUCKET_TOO_LARGE', `Objects in "${definition.name}" are at most ${max} bytes.`);
  const sha256 = input.sha256 ?? null;
  const ifSha256 = input.ifSha256 ?? null;
  if ((sha256 !== null && !HEX64.test(sha256)) || (ifSha256 !== null && ifSha256 !== '' && !HEX64.test(ifSha256))) {
    throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', 'SHA-256 values are 64 lowercase hex characters.');
  }
  const ttl = Math.min(input.ttlMs ?? ctx.reservationTtlMs, 24 * 60 * 60 * 1000);
  await ctx.sweep();
  const now = ctx.now();
  const id = `r${ctx.randomId()}`;
  const storageKey = `${definition.name}/${id.slice(-2)}/${ctx.randomId()}`;
  ctx.catalog.transaction(() => {
    const existing = ctx.catalog.object(definition.name, owner, key);
    checkPrecondition(ifSha256, existing?.sha256 ?? null);
    const request = reservationFor(input.length, existing?.size ?? null);
    const usage = {
      bucket: ctx.catalog.usage(definition.name, null),
      owner: ctx.catalog.usage(definition.name, owner),
      deployment: ctx.catalog.usage(null, null),
    };
    const violation = quotaViolation(definition, ctx.deployment, usage, request);
    if (violation !== null) throw new RuntimeError('SVC_BUCKET_QUOTA_EXCEEDED', `The upload would exceed ${violation}.`);
    ctx.catalog.insertReservation({
      id,
      bucket: definition.name,
      owner,
      key,
      length: input.length,
      reservedObjects: request.objects,
      reservedBytes: request.bytes,
      contentType,
      sha256,
      ifSha256,
      offset: 0,
      stagingId: null,
      stagingState: null,
      storageKey,
      head: null,
      expiresAt: now + ttl,
      createdAt: now,
    });
  });
  try {
    const staging = await ctx.backend.createStaging(id, storageKey, contentType);
    ctx.catalog.setStaging(id, staging.id, staging.state);
  } catch (error) {
    await cancelUpload(ctx, id);
    throw error;
  }
  ctx.hashes.set(id, { offset: 0, hash: createHash('sha256') });
  const capability = signCapability(ctx.signingKey, { op: 'upload', bucket: definition.name, owner, key, reservation: id, expiresAt: now + ttl }, now);
  return {
    id,
    bucket: definition.name,
    key,
    length: input.length,
    offset: 0,
    expiresAt: now + ttl,
    capability,
    path: `${ctx.prefix}/buckets/${definition.name}/uploads/${capability}`,
  };
}

function checkPrecondition(ifSha256: string | null, current: string | null): void {
  if (ifSha256 === null) return;
  if (ifSha256 === '' ? current !== null : current !== ifSha256) {
    throw new RuntimeError('SVC_BUCKET_PRECONDITION_FAILED', ifSha256 === '' ? 'The key already exists.' : 'The object changed (SHA-256 differs).');
  }
}

/** The open reservation or SVC_BUCKET_UPLOAD_NOT_FOUND (also when expired). */
export function openReservation(ctx: BucketContext, id: string): ReservationRow {
  const row = ctx.catalog.reservation(id);
  if (row === undefined || row.expiresAt <= ctx.now())
    throw new RuntimeError('SVC_BUCKET_UPLOAD_NOT_FOUND', 'The upload does not exist, has expired or was completed or cancelled.');
  return row;
}

/**
 * Append one chunk at `offset`. A wrong offset is refused before any byte is written, so an earlier chunk
 * can never be overwritten; a cut or failed chunk leaves the durable offset where it was.
 */
export async function writeChunk(
  ctx: BucketContext,
  id: string,
  offset: number,
  body: AsyncIterable<Uint8Array>,
  length: number,
  options: { checksum?: ChunkChecksum; server?: boolean } = {},
): Promise<ChunkResult> {
  if (ctx.locks.has(id)) throw new RuntimeError('SVC_BUCKET_UPLOAD_LOCKED', 'Another chunk of this upload is in flight.');
  ctx.locks.add(id);
  try {
    const row = openReservation(ctx, id);
    const definition = definitionOf(ctx, row.bucket);
    if (offset !== row.offset) throw new RuntimeError('SVC_BUCKET_OFFSET_MISMATCH', `The upload is at offset ${row.offset}, not ${offset}.`);
    if (row.stagingState === null) throw new RuntimeError('SVC_BUCKET_UPLOAD_NOT_FOUND', 'The upload has no staging area.');
    if (!Number.isSafeInteger(length) || length < 0 || offset + length > row.length)
      throw new RuntimeError('SVC_BUCKET_LENGTH_MISMATCH', `The chunk would go past the declared length ${row.length}.`);
    const final = offset + length === row.length;
    if (options.server !== true) {
      if (length > definition.maxChunkBytes) throw new RuntimeError('SVC_BUCKET_CHUNK_TOO_LARGE', `Chunks are at most ${definition.maxChunkBytes} bytes.`);
      if (!definition.resumable && (offset !== 0 || !final))
        throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', `Bucket "${definition.name}" is not resumable: send the whole object in one request.`);
    }
    if (!final && length < ctx.backend.minChunkBytes)
      throw new RuntimeError('SVC_BUCKET_CHUNK_TOO_SMALL', `Non-final chunks are at least ${ctx.backend.minChunkBytes} bytes on this storage.`);
    const running = await runningHash(ctx, row);
    const meter = new ChunkMeter(length, running, row.head ?? Buffer.alloc(0), options.checksum);
    let state: string;
    try {
      state = await ctx.backend.writeChunk(row.stagingState, offset, meter.pass(body), length);
    } catch (error) {
      if (error instanceof RuntimeError) throw error;
      throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', 'The chunk was interrupted; resume from the offset HEAD reports.', { cause: error });
    }
    if (!ctx.catalog.advance(id, offset, offset + length, state, meter.head())) {
      throw new RuntimeError('SVC_BUCKET_UPLOAD_NOT_FOUND', 'The upload was cancelled meanwhile.');
    }
    // The fork fed by this chunk becomes the state at the new durable offset (a failed chunk dropped its fork).
    if (running === null) ctx.hashes.delete(id);
    else ctx.hashes.set(id, { offset: offset + length, hash: running });
    // Completion runs under the chunk lock, so a second (empty) final PATCH cannot complete twice.
    return { offset: offset + length, object: final ? await completeUpload(ctx, id) : null };
  } finally {
    ctx.locks.delete(id);
  }
}

/**
 * A fork of the running SHA-256 at the durable offset (hashed on the event loop while the chunk streams:
 * with SHA extensions that costs less than handing every piece to another thread). After a restart the
 * state is rebuilt from staging once; null when the backend cannot read staging (hashed after commit).
 */
async function runningHash(ctx: BucketContext, row: ReservationRow): Promise<Hash | null> {
  const known = ctx.hashes.get(row.id);
  if (known !== undefined && known.offset === row.offset) return known.hash.copy();
  const hash = createHash('sha256');
  if (row.offset === 0) return hash;
  const staged = ctx.backend.readStaging(row.stagingState!, row.offset);
  if (staged === null) return null;
  for await (const piece of staged) hash.update(piece as Buffer);
  return hash;
}

/** Forget the running hash of a reservation. */
function dropHash(ctx: BucketContext, id: string): void {
  ctx.hashes.delete(id);
}

/**
 * Counts, hashes and keeps the head of one chunk while passing it through (no extra stream layers); fails
 * on a chunk longer or shorter than declared, or one whose tus checksum does not match.
 */
class ChunkMeter {
  readonly hash: Hash | null;
  private readonly expected: number;
  private readonly checksum: ChunkChecksum | undefined;
  private headParts: Buffer[];
  private headSize: number;

  constructor(expected: number, hash: Hash | null, head: Buffer, checksum?: ChunkChecksum) {
    this.expected = expected;
    this.hash = hash;
    this.checksum = checksum;
    this.headParts = [head];
    this.headSize = head.length;
  }

  async *pass(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    const chunkHash = this.checksum === undefined ? null : createHash(this.checksum.algorithm);
    let seen = 0;
    for await (const piece of source) {
      seen += piece.byteLength;
      if (seen > this.expected) throw new RuntimeError('SVC_BUCKET_LENGTH_MISMATCH', 'The chunk is longer than its Content-Length.');
      this.hash?.update(piece);
      chunkHash?.update(piece);
      if (this.headSize < SNIFF_BYTES) {
        this.headParts.push(Buffer.from(piece.subarray(0, SNIFF_BYTES - this.headSize)));
        this.headSize = Math.min(SNIFF_BYTES, this.headSize + piece.byteLength);
      }
      yield piece;
    }
    if (seen !== this.expected) throw new RuntimeError('SVC_BUCKET_LENGTH_MISMATCH', `The chunk ended after ${seen} of ${this.expected} bytes.`);
    if (chunkHash !== null && !chunkHash.digest().equals(this.checksum!.digest))
      throw new RuntimeError('SVC_BUCKET_CHECKSUM_MISMATCH', 'Upload-Checksum does not match the chunk.');
  }

  /** First SNIFF_BYTES of the object so far. */
  head(): Buffer {
    return Buffer.concat(this.headParts);
  }
}

/** Verify and publish a fully staged upload; on any failure the reservation is cancelled and nothing is visible. */
export async function completeUpload(ctx: BucketContext, id: string): Promise<ObjectInfo> {
  const row = openReservation(ctx, id);
  const definition = definitionOf(ctx, row.bucket);
  try {
    if (row.offset !== row.length) throw new RuntimeError('SVC_BUCKET_LENGTH_MISMATCH', `Only ${row.offset} of ${row.length} bytes arrived.`);
    const running = await runningHash(ctx, row);
    let digest = running === null ? null : running.digest('hex');
    if (digest !== null && row.sha256 !== null && digest !== row.sha256)
      throw new RuntimeError('SVC_BUCKET_CHECKSUM_MISMATCH', 'The bytes do not match the declared SHA-256.');
    const content = verifyContent(row.contentType, row.head ?? Buffer.alloc(0), definition);
    const stat = await ctx.backend.commit(row.stagingState!, row.storageKey);
    if (stat.size !== row.length)
      throw new RuntimeError('SVC_BUCKET_INTEGRITY', `The object store holds ${stat.size} bytes, expected ${row.length}.`, { expose: true });
    if (digest === null) {
      // The running hash was lost (restart with a provider that cannot read staging): hash the stored bytes.
      digest = await hashStored(ctx, row.storageKey);
      if (row.sha256 !== null && digest !== row.sha256) throw new RuntimeError('SVC_BUCKET_CHECKSUM_MISMATCH', 'The bytes do not match the declared SHA-256.');
    }
    const sha256 = digest;
    const now = ctx.now();
    const published = ctx.catalog.transaction(() => {
      if (ctx.catalog.reservation(id) === undefined) throw new RuntimeError('SVC_BUCKET_UPLOAD_NOT_FOUND', 'The upload was cancelled meanwhile.');
      const existing = ctx.catalog.object(row.bucket, row.owner, row.key);
      checkPrecondition(row.ifSha256, existing?.sha256 ?? null);
      ctx.catalog.deleteReservation(id);
      // Re-check quota at commit: the object may have been deleted or replaced since the reservation.
      const usage = { bucket: ctx.catalog.usage(row.bucket, null), owner: ctx.catalog.usage(row.bucket, row.owner), deployment: ctx.catalog.usage(null, null) };
      const violation = quotaViolation(definition, ctx.deployment, usage, { objects: existing ? 0 : 1, bytes: row.length - (existing?.size ?? 0) });
      if (violation !== null) throw new RuntimeError('SVC_BUCKET_QUOTA_EXCEEDED', `Publishing would exceed ${violation}.`);
      const next = {
        bucket: row.bucket,
        owner: row.owner,
        key: row.key,
        generation: (existing?.generation ?? 0) + 1,
        storageKey: row.storageKey,
        sha256,
        contentType: content.contentType,
        size: row.length,
        publicId: existing?.publicId ?? `p${ctx.randomId()}`,
        width: content.width,
        height: content.height,
        providerVersion: stat.version,
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
      ctx.catalog.putObject(next);
      if (existing !== undefined) ctx.catalog.addGarbage('object', existing.storageKey, now);
      return next;
    });
    dropHash(ctx, id);
    await ctx.collectGarbage();
    return toInfo(ctx, published);
  } catch (error) {
    await cancelUpload(ctx, id);
    throw error;
  }
}

async function hashStored(ctx: BucketContext, storageKey: string): Promise<string> {
  const stream = await ctx.backend.read(storageKey);
  if (stream === null) throw new RuntimeError('SVC_BUCKET_INTEGRITY', 'The committed object is missing.', { expose: true });
  const hash = createHash('sha256');
  for await (const piece of stream) hash.update(piece as Buffer);
  return hash.digest('hex');
}

/** Cancel a reservation: quota is released at once; staging and any committed bytes go to the garbage ledger. */
export async function cancelUpload(ctx: BucketContext, id: string): Promise<boolean> {
  const removed = ctx.catalog.transaction(() => {
    const row = ctx.catalog.reservation(id);
    if (row === undefined) return false;
    ctx.catalog.deleteReservation(id);
    const now = ctx.now();
    if (row.stagingState !== null) ctx.catalog.addGarbage('staging', row.stagingState, now);
    ctx.catalog.addGarbage('object', row.storageKey, now);
    return true;
  });
  dropHash(ctx, id);
  if (removed) await ctx.collectGarbage();
  return removed;
}

/** Server-side write of a whole object (server actions, agent tools): one reservation, one chunk, commit. */
export async function putObject(ctx: BucketContext, input: Omit<CreateUploadInput, 'length'> & { body: Uint8Array | string }): Promise<ObjectInfo> {
  const bytes = typeof input.body === 'string' ? Buffer.from(input.body, 'utf8') : Buffer.from(input.body.buffer, input.body.byteOffset, input.body.byteLength);
  const ticket = await createUpload(ctx, { ...input, length: bytes.length, ttlMs: Math.min(input.ttlMs ?? 15 * 60 * 1000, ctx.reservationTtlMs) });
  if (bytes.length === 0) return completeUpload(ctx, ticket.id);
  try {
    const result = await writeChunk(ctx, ticket.id, 0, Readable.from([bytes]), bytes.length, { server: true });
    return result.object!;
  } catch (error) {
    await cancelUpload(ctx, ticket.id);
    throw error;
  }
}

// Reading, listing and deleting published objects. Reads fail closed: bytes missing from, or changed behind,
// the catalog raise SVC_BUCKET_INTEGRITY (size and provider version checked; the SHA-256 re-verified whenever
// the provider version moved).
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { RuntimeError } from '../errors.js';
import { checkKey, definitionOf, partitionOf, toInfo, type BucketContext, type ObjectInfo } from './bucket-context.js';
import { signCapability } from './capability.js';
import type { ObjectRow } from './catalog.js';
import type { UsageCounts } from './effective-limits.js';

/** A page of a partition's objects plus the scoped usage (spec: every list response includes it). */
export interface ObjectList {
  readonly objects: ObjectInfo[];
  readonly nextCursor: string | null;
  readonly usage: { readonly bucket: UsageCounts; readonly owner: UsageCounts };
}

/** The current row of an object or SVC_BUCKET_NOT_FOUND. */
export function findObject(ctx: BucketContext, bucket: string, owner: string | null | undefined, key: string): ObjectRow {
  const definition = definitionOf(ctx, bucket);
  const row = ctx.catalog.object(definition.name, partitionOf(definition, owner), checkKey(key));
  if (row === undefined) throw new RuntimeError('SVC_BUCKET_NOT_FOUND', 'No such object.');
  return row;
}

/** List one partition (key order, at most 1000 per page; `cursor` is the last key of the previous page). */
export function listObjects(
  ctx: BucketContext,
  input: { bucket: string; owner?: string | null; prefix?: string; cursor?: string | null; limit?: number },
): ObjectList {
  const definition = definitionOf(ctx, input.bucket);
  const owner = partitionOf(definition, input.owner);
  const limit = Math.max(1, Math.min(1000, Math.floor(input.limit ?? 100)));
  const prefix = input.prefix ?? '';
  if (prefix.length > 1024 || (input.cursor ?? '').length > 1024)
    throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', 'Prefix and cursor are at most 1024 characters.');
  const rows = ctx.catalog.list(definition.name, owner, prefix, input.cursor ?? '', limit + 1);
  const page = rows.slice(0, limit);
  return {
    objects: page.map((row) => toInfo(ctx, row)),
    nextCursor: rows.length > limit ? page[page.length - 1]!.key : null,
    usage: { bucket: ctx.catalog.usage(definition.name, null), owner: ctx.catalog.usage(definition.name, owner) },
  };
}

/** Check the stored bytes against the catalog; SVC_BUCKET_INTEGRITY when missing or changed. */
export async function verifyStored(ctx: BucketContext, row: ObjectRow): Promise<void> {
  const integrity = (why: string): never => {
    throw new RuntimeError('SVC_BUCKET_INTEGRITY', `Object bytes ${why}; refusing to serve them.`, { expose: true });
  };
  const stat = await ctx.backend.stat(row.storageKey);
  if (stat === null) integrity('are missing');
  if (stat!.size !== row.size) integrity('changed size behind the catalog');
  if (stat!.version === row.providerVersion) return;
  const stream = await ctx.backend.read(row.storageKey);
  if (stream === null) integrity('are missing');
  const hash = createHash('sha256');
  for await (const piece of stream!) hash.update(piece as Buffer);
  if (hash.digest('hex') !== row.sha256) integrity('changed behind the catalog');
  ctx.catalog.setProviderVersion(row.storageKey, stat!.version);
}

/** Open a verified byte stream of an object (optionally a range [start, end]). */
export async function openObject(ctx: BucketContext, row: ObjectRow, range?: { start: number; end: number }): Promise<Readable> {
  await verifyStored(ctx, row);
  const stream = await ctx.backend.read(row.storageKey, range);
  if (stream === null) throw new RuntimeError('SVC_BUCKET_INTEGRITY', 'Object bytes are missing; refusing to serve them.', { expose: true });
  return stream;
}

/** Read a whole object into memory (verified against its SHA-256 before it is returned). */
export async function readObject(ctx: BucketContext, row: ObjectRow): Promise<Buffer> {
  const stream = await openObject(ctx, row);
  const parts: Buffer[] = [];
  for await (const piece of stream) parts.push(piece as Buffer);
  const bytes = Buffer.concat(parts);
  if (createHash('sha256').update(bytes).digest('hex') !== row.sha256)
    throw new RuntimeError('SVC_BUCKET_INTEGRITY', 'Object bytes changed behind the catalog.', { expose: true });
  return bytes;
}

/** Delete an object (optionally only if its SHA-256 still matches); the bytes go through the garbage ledger. */
export async function deleteObject(
  ctx: BucketContext,
  input: { bucket: string; owner?: string | null; key: string; ifSha256?: string | null },
): Promise<boolean> {
  const definition = definitionOf(ctx, input.bucket);
  const owner = partitionOf(definition, input.owner);
  const key = checkKey(input.key);
  const removed = ctx.catalog.transaction(() => {
    const row = ctx.catalog.object(definition.name, owner, key);
    if (row === undefined) return false;
    if (input.ifSha256 !== undefined && input.ifSha256 !== null && row.sha256 !== input.ifSha256)
      throw new RuntimeError('SVC_BUCKET_PRECONDITION_FAILED', 'The object changed (SHA-256 differs).');
    ctx.catalog.addGarbage('object', row.storageKey, ctx.now());
    ctx.catalog.deleteObject(definition.name, owner, key);
    return true;
  });
  if (removed) await ctx.collectGarbage();
  return removed;
}

/** A read capability URL path for one object (private reads; default five minutes, at most 24 h). */
export function readUrl(ctx: BucketContext, input: { bucket: string; owner?: string | null; key: string; ttlMs?: number }): { url: string; expiresAt: number } {
  const row = findObject(ctx, input.bucket, input.owner, input.key);
  const now = ctx.now();
  const expiresAt = now + Math.min(input.ttlMs ?? 5 * 60 * 1000, 24 * 60 * 60 * 1000);
  const capability = signCapability(ctx.signingKey, { op: 'read', bucket: row.bucket, owner: row.owner, key: row.key, reservation: '', expiresAt }, now);
  return { url: `${ctx.prefix}/buckets/${row.bucket}/read?cap=${encodeURIComponent(capability)}`, expiresAt };
}

// What the bucket services share: catalog, backend, validated definitions, limits, key and effects.
import { randomBytes, type Hash } from 'node:crypto';
import { RuntimeError } from '../errors.js';
import type { Catalog, ObjectRow } from './catalog.js';
import type { BucketDefinition } from './define-bucket.js';
import type { DeploymentLimits } from './effective-limits.js';
import type { StorageBackend } from './storage-backend.js';

/** Shared state of one bucket manager (internal). */
export interface BucketContext {
  readonly catalog: Catalog;
  readonly backend: StorageBackend;
  readonly definitions: ReadonlyMap<string, BucketDefinition>;
  readonly deployment: DeploymentLimits;
  readonly signingKey: Buffer;
  readonly now: () => number;
  readonly randomId: () => string;
  readonly prefix: string;
  readonly reservationTtlMs: number;
  /** Running SHA-256 per reservation at its durable offset (lost on restart: rebuilt from staging). */
  readonly hashes: Map<string, { offset: number; hash: Hash }>;
  /** Reservations with a chunk in flight (one writer at a time). */
  readonly locks: Set<string>;
  /** Sweep expired reservations and the garbage ledger (runs before every new reservation). */
  sweep(): Promise<void>;
  /** Retry pending provider deletions now (best effort). */
  collectGarbage(): Promise<void>;
}

/** A published object as the API shows it. */
export interface ObjectInfo {
  readonly bucket: string;
  readonly key: string;
  readonly generation: number;
  readonly sha256: string;
  readonly contentType: string;
  readonly size: number;
  readonly width: number | null;
  readonly height: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Public delivery URL (path) for public buckets; changes with every generation. Null for private buckets. */
  readonly url: string | null;
}

/** 128 random bits as 26 lowercase base-32ish characters (ids, public ids). */
export function randomToken(): string {
  return BigInt(`0x${randomBytes(16).toString('hex')}`)
    .toString(36)
    .padStart(25, '0');
}

/** The definition of a bucket or SVC_BUCKET_UNKNOWN. */
export function definitionOf(ctx: BucketContext, bucket: string): BucketDefinition {
  const definition = ctx.definitions.get(bucket);
  if (definition === undefined) throw new RuntimeError('SVC_BUCKET_UNKNOWN', `No bucket named "${bucket.slice(0, 64)}".`);
  return definition;
}

/** Resolve the partition: user buckets need an owner id, app buckets have one keyspace (''). */
export function partitionOf(definition: BucketDefinition, owner: string | null | undefined): string {
  if (definition.ownership === 'app') {
    if (owner !== undefined && owner !== null && owner !== '')
      throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', `Bucket "${definition.name}" is app-owned; pass no owner.`);
    return '';
  }
  if (typeof owner !== 'string' || owner === '' || owner.length > 256)
    throw new RuntimeError('SVC_BUCKET_FORBIDDEN', `Bucket "${definition.name}" is user-owned; an authenticated owner is required.`);
  return owner;
}

/** Object keys: 1–1024 UTF-8 bytes, no control characters, no leading slash, no empty or dot segments. */
export function checkKey(key: unknown): string {
  if (
    typeof key !== 'string' ||
    key === '' ||
    Buffer.byteLength(key) > 1024 ||
    [...key].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f) ||
    key.startsWith('/') ||
    key.split('/').some((s) => s === '' || s === '.' || s === '..')
  ) {
    throw new RuntimeError('SVC_BUCKET_INVALID_KEY', 'Object keys are 1–1024 bytes of text without control characters, leading "/", empty or dot segments.');
  }
  return key;
}

/** Public delivery path of an object generation. */
export function publicPath(prefix: string, row: ObjectRow): string {
  return `${prefix}/files/${row.publicId}/${row.sha256}`;
}

/** The API view of a catalog row. */
export function toInfo(ctx: BucketContext, row: ObjectRow): ObjectInfo {
  const definition = ctx.definitions.get(row.bucket);
  return {
    bucket: row.bucket,
    key: row.key,
    generation: row.generation,
    sha256: row.sha256,
    contentType: row.contentType,
    size: row.size,
    width: row.width,
    height: row.height,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    url: definition?.visibility === 'public' ? publicPath(ctx.prefix, row) : null,
  };
}

// The narrow view of the bucket manager that agent tools and the inventory page consume (defined where it
// is consumed). Every call names its partition explicitly; callers derive `owner` from the auth context.
import type { ObjectInfo } from '../bucket-context.js';
import type { BucketDefinition } from '../define-bucket.js';
import type { ObjectList } from '../object-service.js';

/** One object address. `owner` is the user id for user-owned buckets and null for app-owned ones. */
export interface ObjectAddress {
  readonly bucket: string;
  readonly owner: string | null;
  readonly key: string;
}

/** What agent tools and the inventory need from a bucket manager. */
export interface BucketAccess {
  /** Validated definitions of every bucket. */
  definitions(): readonly BucketDefinition[];
  /** One page of a partition in key order, with its scoped usage. */
  list(input: { bucket: string; owner: string | null; prefix?: string; cursor?: string | null; limit?: number }): ObjectList | Promise<ObjectList>;
  /** The current object or SVC_BUCKET_NOT_FOUND. */
  stat(input: ObjectAddress): ObjectInfo | Promise<ObjectInfo>;
  /** The object's verified bytes. */
  readBytes(input: ObjectAddress): Promise<{ info: ObjectInfo; bytes: Buffer }>;
  /** A signed read capability path (relative to the app origin) for one object. */
  readUrl(input: ObjectAddress & { ttlMs: number }): { url: string; expiresAt: number };
  /** Server write through the full upload policy. */
  put(input: ObjectAddress & { contentType: string; body: Uint8Array; ifSha256?: string | null }): Promise<ObjectInfo>;
  /** Delete one object; false when it did not exist. */
  delete(input: ObjectAddress & { ifSha256?: string | null }): Promise<boolean>;
  /** Derive and publish one image variant with the manager's transformer. */
  generateVariant(input: ObjectAddress & { variant: string }): Promise<ObjectInfo>;
}

/** The partition a caller may touch: its own user id in user buckets, the app keyspace otherwise. */
export function ownerFor(definition: BucketDefinition, userId: string): string | null {
  return definition.ownership === 'user' ? userId : null;
}

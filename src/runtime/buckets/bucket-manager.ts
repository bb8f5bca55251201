// The bucket manager as its users see it: the backend, the HTTP handler, agent tools and the inventory
// page. Types only, so those users (agent/ among them, which create-bucket-manager.ts wires in) import it
// without importing the factory.
import type { Readable } from 'node:stream';
import type { ObjectInfo } from './bucket-context.js';
import type { BucketDefinition } from './define-bucket.js';
import type { DeploymentLimits, UsageCounts } from './effective-limits.js';
import type { BucketHttpContext } from './http-access.js';
import type { ImageTransformer } from './images/image-transformer.js';
import type { ObjectList } from './object-service.js';
import type { SweepReport } from './sweep.js';
import type { ChunkResult, CreateUploadInput, UploadTicket } from './upload-service.js';

/** Usage of the whole deployment (manager.usage()). */
export interface ManagerUsage extends UsageCounts {
  readonly limits: { readonly maxBytes: number | null; readonly maxObjects: number | null };
  readonly buckets: Readonly<Record<string, UsageCounts>>;
}

/** Server-side operations on one bucket. `owner` is the user id for user-owned buckets, omitted for app buckets. */
export interface BucketHandle {
  readonly definition: BucketDefinition;
  usage(owner?: string | null): { bucket: UsageCounts; owner: UsageCounts | null };
  put(input: {
    owner?: string | null;
    key: string;
    body: Uint8Array | string;
    contentType: string;
    sha256?: string;
    ifSha256?: string | null;
  }): Promise<ObjectInfo>;
  read(input: { owner?: string | null; key: string }): Promise<{ object: ObjectInfo; bytes: Buffer }>;
  stream(input: { owner?: string | null; key: string; range?: { start: number; end: number } }): Promise<{ object: ObjectInfo; stream: Readable }>;
  stat(input: { owner?: string | null; key: string }): ObjectInfo;
  list(input?: { owner?: string | null; prefix?: string; cursor?: string | null; limit?: number }): ObjectList;
  delete(input: { owner?: string | null; key: string; ifSha256?: string | null }): Promise<boolean>;
  /** Reserve an upload for a browser: hand `ticket.path` (the tus upload URL) to the client. */
  createUpload(input: Omit<CreateUploadInput, 'bucket'>): Promise<UploadTicket>;
  /** A short-lived read URL (path) for a private object (default five minutes). */
  readUrl(input: { owner?: string | null; key: string; ttlMs?: number }): { url: string; expiresAt: number };
  /** Derive and publish image variant `variant` of an object (images/generate-variant.ts; full upload policy). */
  variant(input: { owner?: string | null; key: string; variant: string }): Promise<ObjectInfo>;
}

/** The bucket manager passed to openBackend({ buckets }). */
export interface BucketManager {
  readonly definitions: readonly BucketDefinition[];
  readonly deployment: DeploymentLimits;
  readonly prefix: string;
  /** The image transformer given in the options (null: no variant generation). */
  readonly imageTransformer: ImageTransformer | null;
  /** Definitions as published in `GET {prefix}/manifest`. */
  manifest(): BucketDefinition[];
  usage(): ManagerUsage;
  bucket(name: string): BucketHandle;
  /** Serve `{prefix}/buckets/...` and `{prefix}/files/...`. */
  handleHttp(http: BucketHttpContext): Promise<Response>;
  /** Upload primitives (used by the HTTP layer and tests). */
  readonly uploads: {
    write(id: string, offset: number, body: AsyncIterable<Uint8Array>, length: number): Promise<ChunkResult>;
    cancel(id: string): Promise<boolean>;
  };
  sweep(options?: { orphans?: boolean }): Promise<SweepReport>;
  close(): Promise<void>;
}

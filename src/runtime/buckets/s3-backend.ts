// S3-compatible backend (AWS SDK v3). Chunks become multipart-upload parts (each chunk is buffered, at most
// maxChunkBytes); commit completes the upload at the final key. Every key lives under the project prefix and
// deletions are single-key: the backend never lists-and-deletes or bulk-deletes a shared namespace.
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { RuntimeError } from '../errors.js';
import type { StagingEntry, StorageBackend, StoredStat } from './storage-backend.js';

/** Configuration of the S3 backend (from `SVC_BUCKET_S3_*` and `SVC_BUCKET_PREFIX`). */
export interface S3BackendOptions {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** Path-style addressing (`SVC_BUCKET_S3_PATH_STYLE=1`), needed by most self-hosted servers. */
  pathStyle?: boolean;
  /** Unique logical prefix of this project, e.g. `projects/p_123/` (required, never empty). */
  prefix: string;
}

interface S3Staging {
  key: string;
  uploadId: string;
  parts: Array<{ n: number; etag: string; size: number }>;
}

const MIN_PART = 5 * 1024 * 1024;

/** Create the S3 backend. */
export function createS3Backend(options: S3BackendOptions): StorageBackend {
  const prefix = normalizePrefix(options.prefix);
  const client = new S3Client({
    endpoint: options.endpoint,
    region: options.region,
    forcePathStyle: options.pathStyle ?? false,
    credentials: {
      accessKeyId: options.accessKeyId,
      secretAccessKey: options.secretAccessKey,
      ...(options.sessionToken ? { sessionToken: options.sessionToken } : {}),
    },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  });
  const Bucket = options.bucket;
  const keyOf = (storageKey: string): string => {
    if (!/^[a-z0-9_-]+(?:\/[a-z0-9_-]+)*$/.test(storageKey)) throw new RuntimeError('SVC_BUCKET_STORAGE', `Refusing unsafe storage key "${storageKey}".`);
    return `${prefix}${storageKey}`;
  };
  const parse = (state: string): S3Staging => {
    const value = JSON.parse(state) as S3Staging;
    if (typeof value.key !== 'string' || !value.key.startsWith(prefix) || typeof value.uploadId !== 'string' || !Array.isArray(value.parts)) {
      throw new RuntimeError('SVC_BUCKET_STORAGE', 'Corrupt S3 staging state.');
    }
    return value;
  };
  const provider = (error: unknown, what: string): RuntimeError =>
    error instanceof RuntimeError
      ? error
      : new RuntimeError('SVC_BUCKET_STORAGE', `Object store failed to ${what}: ${(error as Error).name}`, { cause: error });

  async function head(key: string): Promise<StoredStat | null> {
    try {
      const out = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
      return { size: Number(out.ContentLength ?? 0), version: String(out.ETag ?? '') };
    } catch (error) {
      if (isMissing(error)) return null;
      throw provider(error, 'stat an object');
    }
  }

  return {
    kind: 's3',
    minChunkBytes: MIN_PART,

    async createStaging(_reservationId, storageKey, contentType) {
      const key = keyOf(storageKey);
      try {
        const out = await client.send(new CreateMultipartUploadCommand({ Bucket, Key: key, ContentType: contentType }));
        if (!out.UploadId) throw new Error('no UploadId');
        return { id: out.UploadId, state: JSON.stringify({ key, uploadId: out.UploadId, parts: [] } satisfies S3Staging) };
      } catch (error) {
        throw provider(error, 'start a multipart upload');
      }
    },

    async writeChunk(state, offset, chunk, length) {
      const staging = parse(state);
      const staged = staging.parts.reduce((sum, p) => sum + p.size, 0);
      if (staged !== offset) throw new RuntimeError('SVC_BUCKET_STORAGE', `Staged ${staged} bytes but the catalog says ${offset}.`);
      const parts: Uint8Array[] = [];
      for await (const piece of chunk) parts.push(piece);
      const body = Buffer.concat(parts, length);
      const n = staging.parts.length + 1;
      try {
        const out = await client.send(
          new UploadPartCommand({ Bucket, Key: staging.key, UploadId: staging.uploadId, PartNumber: n, Body: body, ContentLength: body.length }),
        );
        return JSON.stringify({ ...staging, parts: [...staging.parts, { n, etag: String(out.ETag ?? ''), size: body.length }] } satisfies S3Staging);
      } catch (error) {
        throw provider(error, 'store a part');
      }
    },

    readStaging: () => null,

    async commit(state, storageKey) {
      const staging = parse(state);
      if (staging.key !== keyOf(storageKey)) throw new RuntimeError('SVC_BUCKET_STORAGE', 'Staging and target keys differ.');
      try {
        if (staging.parts.length === 0) {
          await client.send(new PutObjectCommand({ Bucket, Key: staging.key, Body: Buffer.alloc(0), ContentLength: 0 }));
          await abort(staging).catch(() => undefined);
        } else {
          await client.send(
            new CompleteMultipartUploadCommand({
              Bucket,
              Key: staging.key,
              UploadId: staging.uploadId,
              MultipartUpload: { Parts: staging.parts.map((p) => ({ PartNumber: p.n, ETag: p.etag })) },
            }),
          );
        }
      } catch (error) {
        throw provider(error, 'complete an upload');
      }
      const stat = await head(staging.key);
      if (stat === null) throw new RuntimeError('SVC_BUCKET_STORAGE', 'The completed object is missing.');
      return stat;
    },

    async abortStaging(state) {
      await abort(parse(state));
    },

    stat: (storageKey) => head(keyOf(storageKey)),

    async read(storageKey, range) {
      try {
        const out = await client.send(
          new GetObjectCommand({ Bucket, Key: keyOf(storageKey), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
        );
        return out.Body instanceof Readable ? out.Body : Readable.fromWeb(out.Body as never);
      } catch (error) {
        if (isMissing(error)) return null;
        throw provider(error, 'read an object');
      }
    },

    async delete(storageKey) {
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key: keyOf(storageKey) }));
      } catch (error) {
        if (!isMissing(error)) throw provider(error, 'delete an object');
      }
    },

    async listStaging() {
      const entries: StagingEntry[] = [];
      try {
        let keyMarker: string | undefined;
        let uploadIdMarker: string | undefined;
        for (let page = 0; page < 100; page++) {
          const out = await client.send(new ListMultipartUploadsCommand({ Bucket, Prefix: prefix, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }));
          for (const upload of out.Uploads ?? []) {
            if (!upload.Key?.startsWith(prefix) || !upload.UploadId) continue;
            entries.push({
              id: upload.UploadId,
              state: JSON.stringify({ key: upload.Key, uploadId: upload.UploadId, parts: [] } satisfies S3Staging),
              createdAt: upload.Initiated?.getTime() ?? 0,
            });
          }
          if (!out.IsTruncated) break;
          keyMarker = out.NextKeyMarker;
          uploadIdMarker = out.NextUploadIdMarker;
        }
      } catch (error) {
        // Servers without ListMultipartUploads: the provider lifecycle rule must abort stale uploads.
        if (isUnsupported(error)) return entries;
        throw provider(error, 'list multipart uploads');
      }
      return entries;
    },

    async close() {
      client.destroy();
    },
  };

  async function abort(staging: S3Staging): Promise<void> {
    try {
      await client.send(new AbortMultipartUploadCommand({ Bucket, Key: staging.key, UploadId: staging.uploadId }));
    } catch (error) {
      // Already gone, or a server without AbortMultipartUpload (its lifecycle rule cleans up).
      if (isMissing(error) || isUnsupported(error)) return;
      throw provider(error, 'abort a multipart upload');
    }
  }
}

/** `projects/p1` → `projects/p1/`; rejects empty, absolute or dot-segment prefixes. */
export function normalizePrefix(raw: string): string {
  const trimmed = raw.replace(/^\/+|\/+$/g, '');
  if (trimmed === '' || trimmed.split('/').some((s) => s === '' || s === '.' || s === '..') || !/^[\w./-]+$/.test(trimmed)) {
    throw new RuntimeError('SVC_BUCKET_CONFIG', `SVC_BUCKET_PREFIX must be a non-empty path such as "projects/p1/", got "${raw}".`);
  }
  return `${trimmed}/`;
}

function isMissing(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.name === 'NoSuchUpload' || e.$metadata?.httpStatusCode === 404;
}

function isUnsupported(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotImplemented' || e.name === 'MethodNotAllowed' || e.$metadata?.httpStatusCode === 501 || e.$metadata?.httpStatusCode === 405;
}

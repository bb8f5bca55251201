// tus 1.0 over `{prefix}/buckets/{bucket}/uploads`: core (HEAD, PATCH, OPTIONS) plus the creation,
// creation-with-upload, termination, checksum (sha1, sha256) and expiration extensions. The upload URL carries
// the operation-specific upload capability; creation needs a session and CSRF (or a server-issued ticket).
import { Readable } from 'node:stream';
import { RuntimeError } from '../errors.js';
import type { BucketContext } from './bucket-context.js';
import { verifyCapability } from './capability.js';
import type { BucketDefinition } from './define-bucket.js';
import { effectiveMaxObjectBytes } from './effective-limits.js';
import { checkCapabilityHolder, errorWithHeaders, sessionPartition, type BucketHttpContext } from './http-access.js';
import { cancelUpload, completeUpload, createUpload, openReservation, writeChunk, type ChunkResult } from './upload-service.js';

const TUS = { 'tus-resumable': '1.0.0', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
const EXTENSIONS = 'creation,creation-with-upload,termination,checksum,expiration';

/** Parse `Upload-Metadata` (comma-separated `key base64value` pairs). */
export function parseUploadMetadata(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (header === null || header.trim() === '') return out;
  if (header.length > 8192) throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', 'Upload-Metadata is too long.');
  for (const pair of header.split(',')) {
    const [name, value = ''] = pair.trim().split(/\s+/, 2);
    if (!name || !/^[\w.-]+$/.test(name) || name in out) throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', 'Malformed Upload-Metadata.');
    out[name] = Buffer.from(value, 'base64').toString('utf8');
  }
  return out;
}

function checkVersion(request: Request): void {
  const version = request.headers.get('tus-resumable');
  if (version !== null && version !== '1.0.0') throw new RuntimeError('SVC_BUCKET_TUS_VERSION', 'Only tus 1.0.0 is supported.');
}

function wholeNumber(raw: string | null, header: string): number {
  if (raw === null || !/^\d{1,16}$/.test(raw.trim())) throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', `${header} must be a whole number.`);
  return Number(raw.trim());
}

function parseChecksum(header: string | null): { algorithm: 'sha1' | 'sha256'; digest: Buffer } | undefined {
  if (header === null) return undefined;
  const [algorithm, value] = header.trim().split(/\s+/, 2);
  if ((algorithm !== 'sha1' && algorithm !== 'sha256') || value === undefined)
    throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', 'Upload-Checksum supports sha1 and sha256.');
  return { algorithm, digest: Buffer.from(value, 'base64') };
}

function chunkBody(request: Request): { body: AsyncIterable<Uint8Array>; length: number } {
  if ((request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase() !== 'application/offset+octet-stream') {
    throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', 'Chunks use Content-Type application/offset+octet-stream.');
  }
  const length = wholeNumber(request.headers.get('content-length'), 'Content-Length');
  const body = request.body === null ? Readable.from([]) : (request.body as unknown as AsyncIterable<Uint8Array>);
  return { body, length };
}

function resultHeaders(result: ChunkResult, expiresAt: number): Record<string, string> {
  const headers: Record<string, string> = { ...TUS, 'upload-offset': String(result.offset), 'upload-expires': new Date(expiresAt).toUTCString() };
  if (result.object !== null) {
    headers['svc-object-sha256'] = result.object.sha256;
    headers['svc-object-generation'] = String(result.object.generation);
    if (result.object.url !== null) headers['svc-object-url'] = result.object.url;
  }
  return headers;
}

/** `{prefix}/buckets/{bucket}/uploads`: OPTIONS (discovery) and POST (creation, optionally with the first chunk). */
export async function handleUploadCollection(ctx: BucketContext, http: BucketHttpContext, definition: BucketDefinition): Promise<Response> {
  const { request } = http;
  const method = request.method.toUpperCase();
  try {
    if (method === 'OPTIONS') {
      return new Response(null, {
        status: 204,
        headers: {
          ...TUS,
          'tus-version': '1.0.0',
          'tus-extension': EXTENSIONS,
          'tus-max-size': String(effectiveMaxObjectBytes(definition, ctx.deployment)),
          'tus-checksum-algorithm': 'sha1,sha256',
        },
      });
    }
    if (method !== 'POST') throw new RuntimeError('SVC_RUNTIME_METHOD_NOT_ALLOWED', 'Use POST to create an upload.');
    checkVersion(request);
    const owner = sessionPartition(definition, http, true);
    if (request.headers.get('upload-defer-length') !== null)
      throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', 'Upload-Defer-Length is not supported; send Upload-Length.');
    const length = wholeNumber(request.headers.get('upload-length'), 'Upload-Length');
    const meta = parseUploadMetadata(request.headers.get('upload-metadata'));
    const ticket = await createUpload(ctx, {
      bucket: definition.name,
      owner: definition.ownership === 'user' ? owner : null,
      key: meta.key ?? meta.filename ?? '',
      length,
      contentType: meta.contentType ?? meta.filetype ?? meta.type ?? '',
      sha256: meta.sha256 ?? null,
      ifSha256: meta.ifSha256 ?? (meta.ifNoneMatch === '*' ? '' : null),
    });
    let result: ChunkResult = { offset: 0, object: null };
    const hasBody =
      request.headers.get('content-type')?.startsWith('application/offset+octet-stream') === true && Number(request.headers.get('content-length') ?? '0') > 0;
    if (hasBody) {
      const { body, length: chunkLength } = chunkBody(request);
      result = await writeChunk(ctx, ticket.id, 0, body, chunkLength, { checksum: parseChecksum(request.headers.get('upload-checksum')) }).catch(
        (error: unknown) => {
          if (error instanceof RuntimeError && error.code === 'SVC_BUCKET_INVALID_REQUEST') return { offset: 0, object: null };
          throw error;
        },
      );
    } else if (length === 0) {
      result = { offset: 0, object: await completeUpload(ctx, ticket.id) };
    }
    const location = new URL(ticket.path, request.url).href;
    return new Response(
      JSON.stringify({
        upload: { id: ticket.id, url: location, capability: ticket.capability, length, offset: result.offset, expiresAt: ticket.expiresAt },
        object: result.object,
      }),
      {
        status: 201,
        headers: { ...resultHeaders(result, ticket.expiresAt), location, 'content-type': 'application/json; charset=utf-8' },
      },
    );
  } catch (error) {
    return errorWithHeaders(error, TUS, http);
  }
}

/** `{prefix}/buckets/{bucket}/uploads/{capability}`: HEAD (durable offset), PATCH (chunk), DELETE (cancel). */
export async function handleUpload(ctx: BucketContext, http: BucketHttpContext, definition: BucketDefinition, token: string): Promise<Response> {
  const { request } = http;
  let method = request.method.toUpperCase();
  if (method === 'POST') method = (request.headers.get('x-http-method-override') ?? 'POST').toUpperCase();
  try {
    if (method === 'OPTIONS') return new Response(null, { status: 204, headers: { ...TUS, 'tus-version': '1.0.0', 'tus-extension': EXTENSIONS } });
    checkVersion(request);
    const claims = verifyCapability(ctx.signingKey, token, ctx.now(), { op: 'upload', bucket: definition.name });
    checkCapabilityHolder(definition, http, claims.owner);
    const row = openReservation(ctx, claims.reservation);
    if (row.owner !== claims.owner || row.key !== claims.key || row.bucket !== definition.name)
      throw new RuntimeError('SVC_BUCKET_CAPABILITY_INVALID', 'The capability does not match this upload.');
    if (method === 'HEAD') {
      return new Response(null, {
        status: 200,
        headers: { ...TUS, 'upload-offset': String(row.offset), 'upload-length': String(row.length), 'upload-expires': new Date(row.expiresAt).toUTCString() },
      });
    }
    if (method === 'PATCH') {
      const offset = wholeNumber(request.headers.get('upload-offset'), 'Upload-Offset');
      const { body, length } = chunkBody(request);
      const result = await writeChunk(ctx, row.id, offset, body, length, { checksum: parseChecksum(request.headers.get('upload-checksum')) });
      return new Response(null, { status: 204, headers: resultHeaders(result, row.expiresAt) });
    }
    if (method === 'DELETE') {
      await cancelUpload(ctx, row.id);
      return new Response(null, { status: 204, headers: TUS });
    }
    throw new RuntimeError('SVC_RUNTIME_METHOD_NOT_ALLOWED', 'Use HEAD, PATCH or DELETE on an upload.');
  } catch (error) {
    // Read (and drop) an unread chunk so the client sees our status instead of a reset connection.
    await discardBody(request, definition.maxChunkBytes);
    return errorWithHeaders(error, TUS, http);
  }
}

/** Drain an unread request body up to `limit` bytes; beyond that the connection may be reset. */
async function discardBody(request: Request, limit: number): Promise<void> {
  if (request.body === null || request.body.locked) return;
  let seen = 0;
  try {
    for await (const piece of request.body as unknown as AsyncIterable<Uint8Array>) {
      seen += piece.byteLength;
      if (seen > limit) break;
    }
  } catch {
    // The client went away; nothing to drain.
  }
}

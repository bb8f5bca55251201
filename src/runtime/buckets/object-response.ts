// Object byte responses: exact type and length, nosniff, digest ETag, safe Content-Disposition and a sandbox
// CSP, single byte ranges, conditional GET. Public objects use the bucket's cacheControl; private never cache.
import { Readable } from 'node:stream';
import type { BucketContext } from './bucket-context.js';
import type { ObjectRow } from './catalog.js';
import type { BucketDefinition } from './define-bucket.js';
import { openObject, verifyStored } from './object-service.js';

const INLINE = /^(?:image\/(?:png|jpeg|gif|webp|avif)|text\/plain|application\/pdf|audio\/[\w.+-]+|video\/[\w.+-]+)$/;

/** Content-Disposition for a key: inline only for passive types, always with a sanitized file name. */
export function contentDisposition(contentType: string, key: string): string {
  const name = key.split('/').pop() ?? 'file';
  const ascii = name.replace(/[^\w.-]/g, '_').slice(0, 150) || 'file';
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${INLINE.test(contentType) ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Headers every object response carries. */
export function objectHeaders(row: ObjectRow, definition: BucketDefinition, isPublic: boolean): Record<string, string> {
  return {
    'content-type': row.contentType,
    'x-content-type-options': 'nosniff',
    etag: `"sha256-${row.sha256}"`,
    'content-disposition': contentDisposition(row.contentType, row.key),
    'content-security-policy': "default-src 'none'; sandbox",
    'cache-control': isPublic ? definition.cacheControl : 'private, no-store',
    'accept-ranges': 'bytes',
    'referrer-policy': 'no-referrer',
    'cross-origin-resource-policy': isPublic ? 'cross-origin' : 'same-origin',
  };
}

/** Parse a single `bytes=a-b` range against a size; null means serve everything, 'invalid' means 416. */
export function parseRange(header: string | null, size: number): { start: number; end: number } | null | 'invalid' {
  if (header === null) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'invalid';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || end < start) return 'invalid';
  return { start, end };
}

/** The response for GET/HEAD of an object's current generation (bytes verified against the catalog first). */
export async function objectResponse(ctx: BucketContext, request: Request, row: ObjectRow, definition: BucketDefinition, isPublic: boolean): Promise<Response> {
  const headers = objectHeaders(row, definition, isPublic);
  const etag = headers.etag!;
  const inm = request.headers.get('if-none-match');
  if (inm !== null && inm.split(',').some((t) => t.trim() === etag || t.trim() === '*')) {
    await verifyStored(ctx, row);
    return new Response(null, { status: 304, headers: { etag, 'cache-control': headers['cache-control']!, 'x-content-type-options': 'nosniff' } });
  }
  const range = parseRange(request.headers.get('range'), row.size);
  if (range === 'invalid') {
    return new Response(null, { status: 416, headers: { 'content-range': `bytes */${row.size}`, 'x-content-type-options': 'nosniff' } });
  }
  const length = range === null ? row.size : range.end - range.start + 1;
  const extra: Record<string, string> = { 'content-length': String(length) };
  if (range !== null) extra['content-range'] = `bytes ${range.start}-${range.end}/${row.size}`;
  const status = range === null ? 200 : 206;
  if (request.method.toUpperCase() === 'HEAD') {
    await verifyStored(ctx, row);
    return new Response(null, { status, headers: { ...headers, ...extra } });
  }
  if (row.size === 0) await verifyStored(ctx, row);
  const stream = row.size === 0 ? Readable.from([]) : await openObject(ctx, row, range ?? undefined);
  return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { status, headers: { ...headers, ...extra } });
}

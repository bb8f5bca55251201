// HTTP routes over published objects: list, stat, delete and read intents with a session; byte reads with a
// read capability; public delivery by opaque id + digest (`{prefix}/files/{publicId}/{sha256}`).
import { z } from 'zod';
import { RuntimeError } from '../errors.js';
import { readJsonBody } from '../http/read-body.js';
import { jsonResponse } from '../http/responses.js';
import { checkKey, toInfo, type BucketContext } from './bucket-context.js';
import { verifyCapability } from './capability.js';
import type { BucketDefinition } from './define-bucket.js';
import { checkCapabilityHolder, sessionPartition, type BucketHttpContext } from './http-access.js';
import { objectResponse } from './object-response.js';
import { deleteObject, findObject, listObjects, readUrl } from './object-service.js';

const ReadIntent = z
  .object({
    key: z.string().min(1).max(1024),
    ttlSeconds: z
      .number()
      .int()
      .min(1)
      .max(24 * 60 * 60)
      .optional(),
  })
  .strict();

function method(http: BucketHttpContext, ...allowed: string[]): string {
  const m = http.request.method.toUpperCase();
  if (!allowed.includes(m)) throw new RuntimeError('SVC_RUNTIME_METHOD_NOT_ALLOWED', `Use ${allowed.join(' or ')}.`);
  return m;
}

/** GET `buckets/{bucket}/objects?prefix=&cursor=&limit=` — one partition, at most 100 per page, with usage. */
export function handleList(ctx: BucketContext, http: BucketHttpContext, definition: BucketDefinition): Response {
  method(http, 'GET');
  const owner = sessionPartition(definition, http, false);
  const query = new URL(http.request.url).searchParams;
  const limit = Math.min(100, Number(query.get('limit') ?? '100') || 100);
  const list = listObjects(ctx, {
    bucket: definition.name,
    owner: definition.ownership === 'user' ? owner : null,
    prefix: query.get('prefix') ?? '',
    cursor: query.get('cursor'),
    limit,
  });
  return jsonResponse(200, list);
}

/** GET/HEAD (metadata) or DELETE `buckets/{bucket}/objects/{key}` in the caller's own partition. */
export async function handleObject(ctx: BucketContext, http: BucketHttpContext, definition: BucketDefinition, key: string): Promise<Response> {
  const m = method(http, 'GET', 'DELETE');
  const owner = sessionPartition(definition, http, m === 'DELETE');
  const partition = definition.ownership === 'user' ? owner : null;
  if (m === 'DELETE') {
    const ifMatch = http.request.headers.get('if-match');
    const ifSha256 = ifMatch === null ? null : (/^"sha256-([0-9a-f]{64})"$/.exec(ifMatch.trim())?.[1] ?? '!');
    const deleted = await deleteObject(ctx, { bucket: definition.name, owner: partition, key, ifSha256 });
    if (!deleted) throw new RuntimeError('SVC_BUCKET_NOT_FOUND', 'No such object.');
    return jsonResponse(200, { deleted: true });
  }
  return jsonResponse(200, { object: toInfo(ctx, findObject(ctx, definition.name, partition, key)) });
}

/** POST `buckets/{bucket}/read-intents` `{ key, ttlSeconds? }` → a URL to fetch the bytes. */
export async function handleReadIntent(ctx: BucketContext, http: BucketHttpContext, definition: BucketDefinition): Promise<Response> {
  method(http, 'POST');
  const owner = sessionPartition(definition, http, true);
  const parsed = ReadIntent.safeParse(await readJsonBody(http.request, 8 * 1024));
  if (!parsed.success) throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', 'Send { "key": "...", "ttlSeconds"?: n }.');
  const partition = definition.ownership === 'user' ? owner : null;
  const row = findObject(ctx, definition.name, partition, checkKey(parsed.data.key));
  if (definition.visibility === 'public') return jsonResponse(200, { url: toInfo(ctx, row).url, expiresAt: null });
  return jsonResponse(200, readUrl(ctx, { bucket: definition.name, owner: partition, key: row.key, ttlMs: (parsed.data.ttlSeconds ?? 300) * 1000 }));
}

/** GET/HEAD `buckets/{bucket}/read?cap=…` — bytes of one object under an expiring read capability. */
export async function handleCapabilityRead(ctx: BucketContext, http: BucketHttpContext, definition: BucketDefinition): Promise<Response> {
  method(http, 'GET', 'HEAD');
  const token = new URL(http.request.url).searchParams.get('cap') ?? '';
  const claims = verifyCapability(ctx.signingKey, token, ctx.now(), { op: 'read', bucket: definition.name });
  checkCapabilityHolder(definition, http, claims.owner);
  const row = ctx.catalog.object(definition.name, claims.owner, claims.key);
  if (row === undefined) throw new RuntimeError('SVC_BUCKET_NOT_FOUND', 'No such object.');
  return objectResponse(ctx, http.request, row, definition, false);
}

/** GET/HEAD `files/{publicId}/{sha256}` — public buckets only; an old digest is not found. */
export async function handlePublicFile(ctx: BucketContext, http: BucketHttpContext, publicId: string, digest: string): Promise<Response> {
  method(http, 'GET', 'HEAD');
  const row = /^p[0-9a-z]{1,40}$/.test(publicId) ? ctx.catalog.objectByPublicId(publicId) : undefined;
  const definition = row === undefined ? undefined : ctx.definitions.get(row.bucket);
  if (row === undefined || definition === undefined || definition.visibility !== 'public' || row.sha256 !== digest) {
    throw new RuntimeError('SVC_BUCKET_NOT_FOUND', 'No such file.');
  }
  return objectResponse(ctx, http.request, row, definition, true);
}

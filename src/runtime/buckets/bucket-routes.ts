// Dispatch of `{prefix}/buckets/...` and `{prefix}/files/...` (called by the runtime's Fetch handler).
import Router from 'find-my-way';
import { RuntimeError } from '../errors.js';
import { definitionOf, type BucketContext } from './bucket-context.js';
import type { BucketHttpContext } from './http-access.js';
import { handleCapabilityRead, handleList, handleObject, handlePublicFile, handleReadIntent } from './object-routes.js';
import { handleUpload, handleUploadCollection } from './tus-routes.js';

type Params = Record<string, string | undefined>;
type BucketRoute = (ctx: BucketContext, http: BucketHttpContext, params: Params) => Response | Promise<Response>;

const bucket = (ctx: BucketContext, params: Params) => definitionOf(ctx, params.bucket ?? '');

/**
 * Paths only: every handler checks the methods it takes (tus uploads take a method override), so the
 * routes sit under one method and are looked up with it. find-my-way decodes the parameters, the
 * object key (`*`) whole, slashes included.
 */
// Upload capabilities are long; the request line is bounded by node's header limit anyway.
const router = Router({ maxParamLength: 16 * 1024 });
const routes: [string, BucketRoute][] = [
  ['/files/:publicId/:digest', (ctx, http, p) => handlePublicFile(ctx, http, p.publicId ?? '', p.digest ?? '')],
  ['/buckets/:bucket/uploads', (ctx, http, p) => handleUploadCollection(ctx, http, bucket(ctx, p))],
  ['/buckets/:bucket/uploads/:token', (ctx, http, p) => handleUpload(ctx, http, bucket(ctx, p), p.token ?? '')],
  ['/buckets/:bucket/objects', (ctx, http, p) => handleList(ctx, http, bucket(ctx, p))],
  ['/buckets/:bucket/objects/*', (ctx, http, p) => handleObject(ctx, http, bucket(ctx, p), p['*'] ?? '')],
  ['/buckets/:bucket/read-intents', (ctx, http, p) => handleReadIntent(ctx, http, bucket(ctx, p))],
  ['/buckets/:bucket/read', (ctx, http, p) => handleCapabilityRead(ctx, http, bucket(ctx, p))],
];
for (const [path, route] of routes) router.on('GET', path, () => undefined, route);

/** Route one bucket request; throws SVC_RUNTIME_NOT_FOUND for paths that are not bucket routes. */
export async function handleBucketRequest(ctx: BucketContext, http: BucketHttpContext): Promise<Response> {
  const found = router.find('GET', `/${http.route}`);
  // An undecodable path matches nothing (the runtime's handler has refused those already).
  if (found === null) throw new RuntimeError('SVC_RUNTIME_NOT_FOUND', `No bucket route ${http.prefix}/${http.route}.`);
  return (found.store as BucketRoute)(ctx, http, found.params);
}

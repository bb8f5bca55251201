// Dispatch of `{prefix}/buckets/...` and `{prefix}/files/...` (called by the runtime's Fetch handler).
import { RuntimeError } from '../errors.js';
import { definitionOf, type BucketContext } from './bucket-context.js';
import type { BucketHttpContext } from './http-access.js';
import { handleCapabilityRead, handleList, handleObject, handlePublicFile, handleReadIntent } from './object-routes.js';
import { handleUpload, handleUploadCollection } from './tus-routes.js';

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', 'Malformed path.');
  }
}

/** Route one bucket request; throws SVC_RUNTIME_NOT_FOUND for paths that are not bucket routes. */
export async function handleBucketRequest(ctx: BucketContext, http: BucketHttpContext): Promise<Response> {
  const parts = http.route.split('/');
  if (parts[0] === 'files' && parts.length === 3) return handlePublicFile(ctx, http, parts[1]!, parts[2]!);
  if (parts[0] !== 'buckets' || parts.length < 3) throw new RuntimeError('SVC_RUNTIME_NOT_FOUND', `No bucket route ${http.prefix}/${http.route}.`);
  const definition = definitionOf(ctx, decode(parts[1]!));
  const [, , section, ...rest] = parts;
  if (section === 'uploads' && rest.length === 0) return handleUploadCollection(ctx, http, definition);
  if (section === 'uploads' && rest.length === 1) return handleUpload(ctx, http, definition, rest[0]!);
  if (section === 'objects' && rest.length === 0) return handleList(ctx, http, definition);
  if (section === 'objects') return handleObject(ctx, http, definition, decode(rest.join('/')));
  if (section === 'read-intents' && rest.length === 0) return handleReadIntent(ctx, http, definition);
  if (section === 'read' && rest.length === 0) return handleCapabilityRead(ctx, http, definition);
  throw new RuntimeError('SVC_RUNTIME_NOT_FOUND', `No bucket route ${http.prefix}/${http.route}.`);
}

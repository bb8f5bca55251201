// Variant generation: read the verified original, transform it, re-check the output, and publish it through
// the manager's normal server write (the full upload policy: size, quota, type, signature, dimensions).
import { RuntimeError } from '../../errors.js';
import type { ObjectInfo } from '../bucket-context.js';
import type { BucketDefinition } from '../define-bucket.js';
import { checkVariantOutput } from './check-variant-output.js';
import type { ImageTransformer } from './image-transformer.js';
import { isVariantKey, variantKey } from './variant-key.js';

/** What variant generation needs from the manager: a verified read and the policy-enforcing server write. */
export interface VariantStore {
  definition(bucket: string): BucketDefinition;
  readBytes(input: { bucket: string; owner: string | null; key: string }): Promise<{ info: ObjectInfo; bytes: Buffer }>;
  put(input: { bucket: string; owner: string | null; key: string; contentType: string; body: Uint8Array }): Promise<ObjectInfo>;
}

/** Which variant of which object to derive. `owner` comes from the server/auth context, never from a client. */
export interface VariantRequest {
  readonly bucket: string;
  readonly owner: string | null;
  readonly key: string;
  readonly variant: string;
}

/** Derive and publish one variant; returns the published variant object. */
export async function generateVariant(store: VariantStore, transformer: ImageTransformer | null | undefined, request: VariantRequest): Promise<ObjectInfo> {
  const definition = store.definition(request.bucket);
  const image = definition.image;
  const variant = image?.variants[request.variant];
  if (image === undefined || variant === undefined || !Object.hasOwn(image.variants, request.variant)) {
    throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', `Bucket "${definition.name}" has no variant "${request.variant.slice(0, 40)}".`);
  }
  if (transformer === null || transformer === undefined) {
    throw new RuntimeError('SVC_BUCKET_CONFIG', 'Variant generation needs an image transformer given to the bucket manager (createSharpTransformer()).');
  }
  if (isVariantKey(request.key)) throw new RuntimeError('SVC_BUCKET_INVALID_KEY', 'A variant has no variants of its own.');
  const original = await store.readBytes({ bucket: request.bucket, owner: request.owner, key: request.key });
  const output = await transformer.transform(original.bytes, variant, image);
  checkVariantOutput(output, variant, definition);
  return store.put({
    bucket: request.bucket,
    owner: request.owner,
    key: variantKey(request.key, request.variant),
    contentType: output.contentType,
    body: output.bytes,
  });
}

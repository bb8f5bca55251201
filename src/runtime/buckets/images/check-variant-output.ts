// Pure re-check of a transformer's output before it is published: it must be exactly the variant's format
// by signature, fit the variant box, and satisfy the bucket's content policy. Publishing then runs the full
// upload policy (size, quota, type, signature, dimensions) a second time through the normal put path.
import { RuntimeError } from '../../errors.js';
import { IMAGE_MEDIA_TYPES, type BucketDefinition, type VariantDefinition } from '../define-bucket.js';
import { SNIFF_BYTES, normalizeMediaType, sniffImage, verifyContent, type VerifiedContent } from '../content-sniff.js';
import type { TransformOutput } from './image-transformer.js';

/** Verify a transformer output for `variant` of a bucket; returns the verified type and dimensions. */
export function checkVariantOutput(output: TransformOutput, variant: VariantDefinition, definition: BucketDefinition): VerifiedContent {
  const wanted = IMAGE_MEDIA_TYPES[variant.format];
  if (!(output.bytes instanceof Uint8Array)) throw new RuntimeError('SVC_BUCKET_IMAGE_INVALID', 'The transformer returned no bytes.');
  const claimed = normalizeMediaType(String(output.contentType));
  if (claimed !== wanted) throw new RuntimeError('SVC_BUCKET_TYPE_MISMATCH', `The variant must be ${wanted}; the transformer produced ${claimed}.`);
  const head = output.bytes.subarray(0, SNIFF_BYTES);
  const sniffed = sniffImage(head);
  if (sniffed === null || sniffed.type !== wanted)
    throw new RuntimeError('SVC_BUCKET_TYPE_MISMATCH', `The variant bytes are ${sniffed?.type ?? 'not an image'}, not ${wanted}.`);
  const content = verifyContent(claimed, head, definition);
  if (content.width === null || content.height === null || content.width > variant.width || content.height > variant.height) {
    throw new RuntimeError(
      'SVC_BUCKET_IMAGE_INVALID',
      `The variant is ${content.width}x${content.height}, larger than its ${variant.width}x${variant.height} box.`,
    );
  }
  return content;
}

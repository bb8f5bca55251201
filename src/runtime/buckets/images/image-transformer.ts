// The image transformer seam: the manager is given one (e.g. createSharpTransformer()) to derive variants.
// Its output is never trusted: it is re-checked here and then published through the full upload policy.
import type { VariantDefinition } from '../define-bucket.js';

/** Limits the transformer must enforce on its input before decoding it (the bucket's image limits). */
export interface ImageInputLimits {
  readonly maxWidth: number;
  readonly maxHeight: number;
  readonly maxPixels: number;
}

/** What a transformer produced: bytes plus the media type it claims they are. */
export interface TransformOutput {
  readonly bytes: Uint8Array;
  readonly contentType: string;
}

/** Turns a stored image into one variant (resize, fit, format, quality). */
export interface ImageTransformer {
  transform(input: Uint8Array, variant: VariantDefinition, limits: ImageInputLimits): Promise<TransformOutput>;
}

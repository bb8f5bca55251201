// The default image transformer over sharp (libvips). Decoding is bounded before any pixel is touched: the
// decoder's own header dimensions are checked against the bucket limits, and libvips gets the pixel cap.
// sharp (a native module) is loaded on the first transform, so apps without variants never load it.
import type Sharp from 'sharp';
import type { Metadata } from 'sharp';
import { RuntimeError } from '../../errors.js';
import { IMAGE_MEDIA_TYPES, type VariantDefinition } from '../define-bucket.js';
import type { ImageInputLimits, ImageTransformer, TransformOutput } from './image-transformer.js';

type SharpFactory = typeof Sharp;

/** Options of createSharpTransformer. */
export interface SharpTransformerOptions {
  /** libvips worker threads (process-wide sharp setting; default: leave sharp's own default). */
  concurrency?: number;
  /** Abort a single transform after this many seconds (default 30). */
  timeoutSeconds?: number;
}

/** An ImageTransformer backed by sharp: auto-orients, resizes with the variant's fit, strips metadata. */
export function createSharpTransformer(options: SharpTransformerOptions = {}): ImageTransformer {
  const timeoutSeconds = Math.max(1, Math.floor(options.timeoutSeconds ?? 30));
  let loaded: Promise<SharpFactory> | null = null;
  const load = () =>
    (loaded ??= import('sharp').then((module) => {
      const factory = ((module as { default?: SharpFactory }).default ?? module) as SharpFactory;
      if (options.concurrency !== undefined) factory.concurrency(Math.max(1, Math.floor(options.concurrency)));
      return factory;
    }));
  return {
    async transform(input: Uint8Array, variant: VariantDefinition, limits: ImageInputLimits): Promise<TransformOutput> {
      const sharp = await load();
      const open = () => sharp(input, { limitInputPixels: limits.maxPixels, failOn: 'error', animated: false, sequentialRead: true });
      let meta: Metadata;
      try {
        meta = await open().metadata();
      } catch (error) {
        throw new RuntimeError('SVC_BUCKET_IMAGE_INVALID', 'The image cannot be decoded.', { cause: error });
      }
      // The decoder's dimensions are the real ones: refuse before decoding pixels when they exceed the limits.
      const width = meta.width ?? 0;
      const height = meta.pageHeight ?? meta.height ?? 0;
      if (width <= 0 || height <= 0 || width > limits.maxWidth || height > limits.maxHeight || width * height > limits.maxPixels) {
        throw new RuntimeError('SVC_BUCKET_IMAGE_INVALID', `The decoded image is ${width}x${height}, beyond the bucket's image limits.`);
      }
      try {
        const bytes = await open()
          .rotate()
          .resize(variant.width, variant.height, { fit: variant.fit, withoutEnlargement: false })
          .toFormat(variant.format, { quality: variant.quality })
          .timeout({ seconds: timeoutSeconds })
          .toBuffer();
        return { bytes, contentType: IMAGE_MEDIA_TYPES[variant.format] };
      } catch (error) {
        throw new RuntimeError('SVC_BUCKET_IMAGE_INVALID', 'The image could not be transformed.', { cause: error });
      }
    },
  };
}

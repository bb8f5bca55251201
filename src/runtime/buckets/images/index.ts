// Image variants: public surface (re-exported by @svc-dev/svc/runtime through ../index.ts).
export { createSharpTransformer, type SharpTransformerOptions } from './create-sharp-transformer.js';
export type { ImageTransformer, ImageInputLimits, TransformOutput } from './image-transformer.js';
export { variantKey, isVariantKey, parseVariantKey, VARIANT_PREFIX } from './variant-key.js';
export { checkVariantOutput } from './check-variant-output.js';
export { generateVariant, type VariantStore, type VariantRequest } from './generate-variant.js';
export { gifDimensions } from './gif-dimensions.js';

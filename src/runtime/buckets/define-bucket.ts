// defineBucket: validates a bucket definition (docs/buckets.md) at startup and fills documented defaults.
import { z } from 'zod';
import { RuntimeError } from '../errors.js';

/** Image formats a bucket may accept (signature-checked); GIF dimensions are parsed but GIF is not an image format here. */
export const IMAGE_FORMATS = ['png', 'jpeg', 'webp', 'avif'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

/** Media type of each image format. */
export const IMAGE_MEDIA_TYPES: Record<ImageFormat, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', avif: 'image/avif' };

const MiB = 1024 * 1024;
/** Defaults of the limit fields (docs/buckets.md lists them). */
export const BUCKET_DEFAULTS = {
  maxObjectBytes: 10 * MiB,
  maxObjects: 100_000,
  maxBytes: 1024 * MiB,
  perOwnerMaxObjects: 1_000,
  perOwnerMaxBytes: 100 * MiB,
  resumable: true,
  maxChunkBytes: 8 * MiB,
  publicCacheControl: 'public, max-age=31536000, immutable',
  privateCacheControl: 'private, no-store',
  image: { maxWidth: 8192, maxHeight: 8192, maxPixels: 40_000_000 },
} as const;

const positiveInt = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const mediaType = z
  .string()
  .regex(
    /^(?:\*\/\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/(?:\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,127}))$/,
    'a media type such as "image/png", a family such as "image/*", or "*/*"',
  );

const Variant = z
  .object({
    width: positiveInt.max(16384),
    height: positiveInt.max(16384),
    fit: z.enum(['cover', 'contain', 'inside', 'outside', 'fill']).default('cover'),
    format: z.enum(IMAGE_FORMATS),
    quality: z.number().int().min(1).max(100).default(80),
  })
  .strict();

const Image = z
  .object({
    maxWidth: positiveInt.default(BUCKET_DEFAULTS.image.maxWidth),
    maxHeight: positiveInt.default(BUCKET_DEFAULTS.image.maxHeight),
    maxPixels: positiveInt.default(BUCKET_DEFAULTS.image.maxPixels),
    formats: z.array(z.enum(IMAGE_FORMATS)).min(1),
    variants: z.record(z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'variant names are lowercase words'), Variant).default({}),
  })
  .strict();

const Definition = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9_-]{0,62}$/, 'bucket names are lowercase letters, digits, "-" and "_" (start with a letter, at most 63)'),
    description: z.string().max(1000).default(''),
    ownership: z.enum(['user', 'app']),
    visibility: z.enum(['private', 'public']),
    browserAccess: z.enum(['authenticated', 'public', 'server']).default('authenticated'),
    allowedContentTypes: z.array(mediaType).min(1),
    maxObjectBytes: positiveInt.default(BUCKET_DEFAULTS.maxObjectBytes),
    maxObjects: positiveInt.default(BUCKET_DEFAULTS.maxObjects),
    maxBytes: positiveInt.default(BUCKET_DEFAULTS.maxBytes),
    perOwnerMaxObjects: positiveInt.default(BUCKET_DEFAULTS.perOwnerMaxObjects),
    perOwnerMaxBytes: positiveInt.default(BUCKET_DEFAULTS.perOwnerMaxBytes),
    resumable: z.boolean().default(BUCKET_DEFAULTS.resumable),
    maxChunkBytes: positiveInt.default(BUCKET_DEFAULTS.maxChunkBytes),
    cacheControl: z
      .string()
      .max(200)
      .regex(/^[\x20-\x7e]*$/, 'printable ASCII')
      .optional(),
    image: Image.optional(),
  })
  .strict();

/** What an app writes (defaults filled by defineBucket). */
export type BucketDefinitionInput = z.input<typeof Definition>;

/** A validated bucket definition with every default filled. */
export type BucketDefinition = Readonly<Omit<z.output<typeof Definition>, 'cacheControl'> & { cacheControl: string }>;
export type VariantDefinition = z.output<typeof Variant>;

/** Validate a bucket definition; throws SVC_BUCKET_DEFINITION naming the bad field. */
export function defineBucket(input: BucketDefinitionInput): BucketDefinition {
  const parsed = Definition.safeParse(input);
  const name = typeof (input as { name?: unknown })?.name === 'string' ? (input as { name: string }).name : '?';
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new RuntimeError('SVC_BUCKET_DEFINITION', `Bucket "${name}": ${issue.path.join('.') || 'definition'} ${issue.message}.`);
  }
  const d = parsed.data;
  const fail = (message: string): never => {
    throw new RuntimeError('SVC_BUCKET_DEFINITION', `Bucket "${d.name}": ${message}`);
  };
  if (d.browserAccess === 'public' && (d.ownership !== 'app' || d.visibility !== 'public')) {
    fail('browserAccess "public" needs ownership "app" and visibility "public" (anonymous reads of user partitions or private bytes are not possible).');
  }
  if (d.perOwnerMaxBytes > d.maxBytes) d.perOwnerMaxBytes = d.maxBytes;
  if (d.perOwnerMaxObjects > d.maxObjects) d.perOwnerMaxObjects = d.maxObjects;
  if (d.image !== undefined) {
    for (const format of d.image.formats) {
      if (!typeAllowed(IMAGE_MEDIA_TYPES[format], d.allowedContentTypes)) fail(`image format ${format} is not in allowedContentTypes.`);
    }
    for (const [variant, v] of Object.entries(d.image.variants)) {
      if (v.width > d.image.maxWidth || v.height > d.image.maxHeight) fail(`variant ${variant} is larger than the image limits.`);
    }
  }
  const cacheControl = d.cacheControl ?? (d.visibility === 'public' ? BUCKET_DEFAULTS.publicCacheControl : BUCKET_DEFAULTS.privateCacheControl);
  return Object.freeze({ ...d, cacheControl });
}

/** Validate a list of definitions: each valid, names unique. */
export function defineBuckets(inputs: readonly (BucketDefinitionInput | BucketDefinition)[]): readonly BucketDefinition[] {
  const seen = new Set<string>();
  return inputs.map((input) => {
    const definition = defineBucket(input as BucketDefinitionInput);
    if (seen.has(definition.name)) throw new RuntimeError('SVC_BUCKET_DEFINITION', `Bucket "${definition.name}" is defined twice.`);
    seen.add(definition.name);
    return definition;
  });
}

/** Whether a media type (lowercase, without parameters) matches one of the allowed types or families. */
export function typeAllowed(type: string, allowed: readonly string[]): boolean {
  const family = type.split('/')[0];
  return allowed.some((a) => a === '*/*' || a === type || (a.endsWith('/*') && a.slice(0, -2) === family));
}

/** The immutable part of a bucket contract: variant names and geometry (compared at startup once data exists). */
export function variantGeometry(definition: BucketDefinition): Record<string, { width: number; height: number; fit: string }> {
  const out: Record<string, { width: number; height: number; fit: string }> = {};
  for (const name of Object.keys(definition.image?.variants ?? {}).sort()) {
    const v = definition.image!.variants[name]!;
    out[name] = { width: v.width, height: v.height, fit: v.fit };
  }
  return out;
}

// Content inspection (pure): image formats and dimensions from file signatures — never from the extension
// or the declared media type — and the upload type policy built on them.
import { RuntimeError } from '../errors.js';
import { typeAllowed, type BucketDefinition } from './define-bucket.js';

/** Bytes of the object's head kept for inspection (enough for JPEG SOF after a full EXIF segment). */
export const SNIFF_BYTES = 128 * 1024;

/** An image recognised by its signature. */
export interface SniffedImage {
  readonly format: 'png' | 'jpeg' | 'gif' | 'webp' | 'avif';
  readonly type: string;
  readonly width: number | null;
  readonly height: number | null;
}

/** What an upload was verified to be. */
export interface VerifiedContent {
  readonly contentType: string;
  readonly width: number | null;
  readonly height: number | null;
}

/** Lowercased media type without parameters; SVC_BUCKET_INVALID_REQUEST when malformed. */
export function normalizeMediaType(raw: string): string {
  const essence = raw.split(';')[0]!.trim().toLowerCase();
  if (!/^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,127}$/.test(essence)) {
    throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', `"${raw.slice(0, 80)}" is not a media type.`);
  }
  return essence;
}

/** Recognise PNG, JPEG, GIF, WebP and AVIF by signature and read their dimensions when present. */
export function sniffImage(head: Uint8Array): SniffedImage | null {
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a) {
    const ihdr = b.length >= 24 && b.toString('latin1', 12, 16) === 'IHDR';
    return { format: 'png', type: 'image/png', width: ihdr ? b.readUInt32BE(16) : null, height: ihdr ? b.readUInt32BE(20) : null };
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return { format: 'jpeg', type: 'image/jpeg', ...jpegSize(b) };
  if (b.length >= 10 && (b.toString('latin1', 0, 6) === 'GIF87a' || b.toString('latin1', 0, 6) === 'GIF89a')) {
    return { format: 'gif', type: 'image/gif', width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  }
  if (b.length >= 16 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP')
    return { format: 'webp', type: 'image/webp', ...webpSize(b) };
  if (b.length >= 16 && b.toString('latin1', 4, 8) === 'ftyp') {
    const boxSize = Math.min(b.readUInt32BE(0), b.length);
    const brands: string[] = [];
    for (let at = 8; at + 4 <= boxSize; at += 4) if (at !== 12) brands.push(b.toString('latin1', at, at + 4));
    if (brands.includes('avif') || brands.includes('avis')) return { format: 'avif', type: 'image/avif', ...avifSize(b) };
  }
  return null;
}

function jpegSize(b: Buffer): { width: number | null; height: number | null } {
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return { width: null, height: null };
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    const length = b.readUInt16BE(at + 2);
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof && at + 9 <= b.length) return { height: b.readUInt16BE(at + 5), width: b.readUInt16BE(at + 7) };
    if (marker === 0xd9 || marker === 0xda || length < 2) break;
    at += 2 + length;
  }
  return { width: null, height: null };
}

function webpSize(b: Buffer): { width: number | null; height: number | null } {
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8 ' && b.length >= 30 && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a) {
    return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  }
  if (chunk === 'VP8L' && b.length >= 25 && b[20] === 0x2f) {
    const bits = b.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X' && b.length >= 30) return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
  return { width: null, height: null };
}

function avifSize(b: Buffer): { width: number | null; height: number | null } {
  // The image spatial extent ('ispe') property; the largest one is the primary image (thumbnails are smaller).
  let best: { width: number; height: number } | null = null;
  for (let at = b.indexOf('ispe', 0, 'latin1'); at >= 0 && at + 16 <= b.length; at = b.indexOf('ispe', at + 4, 'latin1')) {
    const width = b.readUInt32BE(at + 8);
    const height = b.readUInt32BE(at + 12);
    if (best === null || width * height > best.width * best.height) best = { width, height };
  }
  return best ?? { width: null, height: null };
}

/** Whether the head looks like HTML, SVG or XML markup (a script carrier). */
export function looksLikeMarkup(head: Uint8Array): boolean {
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, 1024))
    .toString('latin1')
    .replace(/^\ufeff|^\xef\xbb\xbf/, '')
    .trimStart()
    .toLowerCase();
  return /^<(?:!doctype|html|head|body|script|svg|\?xml|iframe|object|embed)\b/.test(text) || text.includes('<script');
}

/** Check the declared type of an upload (before any byte arrives): allowed by the bucket. */
export function checkDeclaredType(declared: string, definition: BucketDefinition): string {
  const type = normalizeMediaType(declared);
  if (!typeAllowed(type, definition.allowedContentTypes)) {
    throw new RuntimeError('SVC_BUCKET_TYPE_NOT_ALLOWED', `Bucket "${definition.name}" does not accept ${type}.`);
  }
  if (definition.image !== undefined && !definition.image.formats.some((f) => `image/${f}` === type)) {
    throw new RuntimeError('SVC_BUCKET_TYPE_NOT_ALLOWED', `Bucket "${definition.name}" stores images (${definition.image.formats.join(', ')}) only.`);
  }
  return type;
}

/**
 * Verify the bytes against the declared type (pure): declared image types must match the signature exactly,
 * image bytes may not hide behind another type, image buckets enforce formats and dimension limits.
 */
export function verifyContent(declared: string, head: Uint8Array, definition: BucketDefinition): VerifiedContent {
  const type = checkDeclaredType(declared, definition);
  const image = sniffImage(head);
  const mismatch = (why: string): never => {
    throw new RuntimeError('SVC_BUCKET_TYPE_MISMATCH', `Declared ${type} but ${why}.`);
  };
  if (type.startsWith('image/') && type !== 'image/svg+xml') {
    if (image === null) mismatch(looksLikeMarkup(head) ? 'the bytes are markup/script' : 'the bytes carry no known image signature');
    if (image!.type !== type) mismatch(`the bytes are ${image!.type}`);
  } else if (image !== null && type !== 'application/octet-stream') {
    mismatch(`the bytes are ${image.type}`);
  }
  if (image === null || !type.startsWith('image/')) return { contentType: type, width: null, height: null };
  if (image.width === null || image.height === null || image.width === 0 || image.height === 0) {
    throw new RuntimeError('SVC_BUCKET_IMAGE_INVALID', `The ${image.format} image has no readable dimensions.`);
  }
  const limits = definition.image;
  if (limits !== undefined) {
    if (!(limits.formats as readonly string[]).includes(image.format))
      throw new RuntimeError('SVC_BUCKET_IMAGE_INVALID', `Format ${image.format} is not accepted here.`);
    if (image.width > limits.maxWidth || image.height > limits.maxHeight || image.width * image.height > limits.maxPixels) {
      throw new RuntimeError('SVC_BUCKET_IMAGE_INVALID', `${image.width}x${image.height} exceeds the bucket's image limits.`);
    }
  }
  return { contentType: type, width: image.width, height: image.height };
}

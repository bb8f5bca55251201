import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { RuntimeError, defineBucket, sniffImage } from '../../../src/runtime/index.js';
import { checkVariantOutput } from '../../../src/runtime/buckets/images/check-variant-output.js';
import { createSharpTransformer } from '../../../src/runtime/buckets/images/create-sharp-transformer.js';
import type { ImageTransformer } from '../../../src/runtime/buckets/images/image-transformer.js';
import { gifDimensions } from '../../../src/runtime/buckets/images/gif-dimensions.js';
import { isVariantKey, parseVariantKey, variantKey } from '../../../src/runtime/buckets/images/variant-key.js';
import { makeImage, tempBuckets } from './support.js';

const photos = {
  name: 'photos',
  ownership: 'user' as const,
  visibility: 'private' as const,
  allowedContentTypes: ['image/*'],
  maxObjectBytes: 64 * 1024,
  image: {
    maxWidth: 400,
    maxHeight: 400,
    maxPixels: 120_000,
    formats: ['png' as const, 'jpeg' as const, 'webp' as const],
    variants: { thumb: { width: 32, height: 32, fit: 'cover' as const, format: 'webp' as const, quality: 70 } },
  },
};

let env: ReturnType<typeof tempBuckets> | undefined;
afterEach(async () => {
  await env?.cleanup();
  env = undefined;
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RuntimeError) return error.code;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('variant keys', () => {
  it('derive a reserved key per variant and parse back', () => {
    expect(variantKey('a/b.png', 'thumb')).toBe('.variants/thumb/a/b.png');
    expect(isVariantKey('.variants/thumb/a/b.png')).toBe(true);
    expect(parseVariantKey('.variants/thumb/a/b.png')).toEqual({ name: 'thumb', original: 'a/b.png' });
    expect(parseVariantKey('a/b.png')).toBeNull();
    expect(() => variantKey('.variants/thumb/x', 'thumb')).toThrow(RuntimeError);
    expect(() => variantKey('x', 'Bad Name')).toThrow(RuntimeError);
  });
});

describe('sharp transformer', () => {
  it('produces the declared format and geometry, which passes the output check', async () => {
    const definition = defineBucket(photos);
    const input = await makeImage(200, 100, 'png');
    const output = await createSharpTransformer().transform(input, definition.image!.variants.thumb!, definition.image!);
    expect(output.contentType).toBe('image/webp');
    const meta = await sharp(output.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 32, 32]);
    expect(checkVariantOutput(output, definition.image!.variants.thumb!, definition)).toEqual({ contentType: 'image/webp', width: 32, height: 32 });
  });

  it('refuses input whose decoded dimensions exceed the limits before decoding pixels', async () => {
    const definition = defineBucket(photos);
    const input = await makeImage(500, 20, 'png');
    await expect(codeOf(createSharpTransformer().transform(input, definition.image!.variants.thumb!, definition.image!))).resolves.toBe(
      'SVC_BUCKET_IMAGE_INVALID',
    );
    await expect(codeOf(createSharpTransformer().transform(Buffer.from('not an image'), definition.image!.variants.thumb!, definition.image!))).resolves.toBe(
      'SVC_BUCKET_IMAGE_INVALID',
    );
  });
});

describe('variant generation through the manager', () => {
  it('derives a variant that passes the full upload policy and lives in the owner partition', async () => {
    env = tempBuckets();
    const manager = await env.open({ definitions: [photos], imageTransformer: createSharpTransformer() });
    const bucket = manager.bucket('photos');
    await bucket.put({ owner: 'u1', key: 'cat.png', contentType: 'image/png', body: await makeImage(300, 200, 'png') });
    const variant = await bucket.variant({ owner: 'u1', key: 'cat.png', variant: 'thumb' });
    expect(variant).toMatchObject({ key: '.variants/thumb/cat.png', contentType: 'image/webp', width: 32, height: 32 });
    const read = await bucket.read({ owner: 'u1', key: variantKey('cat.png', 'thumb') });
    expect((await sharp(read.bytes).metadata()).format).toBe('webp');
    // Another user's partition has neither the original nor the variant.
    await expect(codeOf(bucket.variant({ owner: 'u2', key: 'cat.png', variant: 'thumb' }))).resolves.toBe('SVC_BUCKET_NOT_FOUND');
    expect(bucket.list({ owner: 'u2' }).objects).toEqual([]);
    await expect(codeOf(bucket.variant({ owner: 'u1', key: 'cat.png', variant: 'huge' }))).resolves.toBe('SVC_BUCKET_INVALID_REQUEST');
  });

  it('fails clearly without a transformer', async () => {
    env = tempBuckets();
    const manager = await env.open({ definitions: [photos] });
    await manager.bucket('photos').put({ owner: 'u1', key: 'cat.png', contentType: 'image/png', body: await makeImage(40, 40, 'png') });
    await expect(codeOf(manager.bucket('photos').variant({ owner: 'u1', key: 'cat.png', variant: 'thumb' }))).resolves.toBe('SVC_BUCKET_CONFIG');
  });

  it('rejects transformer output that violates the policy and publishes nothing', async () => {
    env = tempBuckets();
    const good = await sharp(await makeImage(32, 32, 'png'))
      .webp()
      .toBuffer();
    const cases: Array<[string, ImageTransformer['transform'], string]> = [
      ['wrong format, honest type', async () => ({ bytes: await makeImage(32, 32, 'png'), contentType: 'image/png' }), 'SVC_BUCKET_TYPE_MISMATCH'],
      ['wrong format, lying type', async () => ({ bytes: await makeImage(32, 32, 'png'), contentType: 'image/webp' }), 'SVC_BUCKET_TYPE_MISMATCH'],
      [
        'markup instead of an image',
        async () => ({ bytes: Buffer.from('<svg onload="alert(1)"></svg>'), contentType: 'image/webp' }),
        'SVC_BUCKET_TYPE_MISMATCH',
      ],
      [
        'larger than the variant box',
        async () => ({
          bytes: await sharp(await makeImage(64, 64, 'png'))
            .webp()
            .toBuffer(),
          contentType: 'image/webp',
        }),
        'SVC_BUCKET_IMAGE_INVALID',
      ],
      [
        'beyond the bucket image limits',
        async () => ({
          bytes: await sharp(await makeImage(500, 30, 'png'))
            .webp()
            .toBuffer(),
          contentType: 'image/webp',
        }),
        'SVC_BUCKET_IMAGE_INVALID',
      ],
      [
        'too many bytes for the bucket',
        async () => ({ bytes: Buffer.concat([good, Buffer.alloc(70 * 1024)]), contentType: 'image/webp' }),
        'SVC_BUCKET_TOO_LARGE',
      ],
    ];
    for (const [label, transform, code] of cases) {
      const manager = await env.open({ definitions: [photos], imageTransformer: { transform } });
      const bucket = manager.bucket('photos');
      await bucket.put({ owner: 'u1', key: 'cat.png', contentType: 'image/png', body: await makeImage(300, 200, 'png') });
      expect([label, await codeOf(bucket.variant({ owner: 'u1', key: 'cat.png', variant: 'thumb' }))]).toEqual([label, code]);
      expect(bucket.list({ owner: 'u1' }).objects.map((o) => o.key)).toEqual(['cat.png']);
      expect(bucket.usage('u1').owner).toMatchObject({ objects: 1, reservedObjects: 0, reservedBytes: 0 });
      await manager.close();
    }
  });
});

describe('image inspection (fault: real dimensions exceed limits though declared small)', () => {
  it('rejects a PNG whose real dimensions exceed the limits whatever the key or declared type says', async () => {
    env = tempBuckets();
    const manager = await env.open({ definitions: [photos] });
    const bucket = manager.bucket('photos');
    const big = await makeImage(401, 10, 'png');
    await expect(codeOf(bucket.put({ owner: 'u1', key: 'tiny-16x16.png', contentType: 'image/png', body: big }))).resolves.toBe('SVC_BUCKET_IMAGE_INVALID');
    const tooManyPixels = await makeImage(400, 301, 'png'); // 120,400 pixels > maxPixels 120,000
    await expect(codeOf(bucket.put({ owner: 'u1', key: 'small.png', contentType: 'image/png', body: tooManyPixels }))).resolves.toBe(
      'SVC_BUCKET_IMAGE_INVALID',
    );
    expect(bucket.list({ owner: 'u1' }).objects).toEqual([]);
  });

  it('reads the real JPEG frame size, not a small frame header hidden in an APP1 segment', async () => {
    env = tempBuckets();
    const manager = await env.open({ definitions: [photos] });
    const real = await makeImage(500, 20, 'jpeg');
    // A fake SOF0 claiming 16x16 inside an APP1 segment placed right after SOI.
    const fakeSof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x10, 0x00, 0x10, 0x03, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0]);
    const payload = Buffer.concat([Buffer.from('Exif\0\0'), fakeSof]);
    const app1 = Buffer.concat([Buffer.from([0xff, 0xe1]), Buffer.from([(payload.length + 2) >> 8, (payload.length + 2) & 0xff]), payload]);
    const crafted = Buffer.concat([real.subarray(0, 2), app1, real.subarray(2)]);
    expect(sniffImage(crafted)).toMatchObject({ format: 'jpeg', width: 500, height: 20 });
    expect((await sharp(crafted).metadata()).width).toBe(500);
    await expect(codeOf(manager.bucket('photos').put({ owner: 'u1', key: 'small.jpg', contentType: 'image/jpeg', body: crafted }))).resolves.toBe(
      'SVC_BUCKET_IMAGE_INVALID',
    );
  });

  it('rejects bytes of another format than declared (signature, never the declared type)', async () => {
    env = tempBuckets();
    const manager = await env.open({ definitions: [photos] });
    await expect(
      codeOf(manager.bucket('photos').put({ owner: 'u1', key: 'x.png', contentType: 'image/png', body: await makeImage(10, 10, 'jpeg') })),
    ).resolves.toBe('SVC_BUCKET_TYPE_MISMATCH');
  });

  it('parses GIF dimensions and records them', async () => {
    const gif = await makeImage(37, 21, 'gif');
    expect(sniffImage(gif)).toMatchObject({ format: 'gif', width: 37, height: 21 });
    env = tempBuckets();
    const manager = await env.open({ definitions: [{ name: 'anims', ownership: 'app', visibility: 'private', allowedContentTypes: ['image/gif'] }] });
    const info = await manager.bucket('anims').put({ key: 'a.gif', contentType: 'image/gif', body: gif });
    expect([info.width, info.height]).toEqual([37, 21]);
  });
});

describe('variant contract (fault: names/geometry changed after data exists)', () => {
  it('refuses to start when variant geometry or names change once the bucket holds data', async () => {
    env = tempBuckets();
    const first = await env.open({ definitions: [photos] });
    // No data yet: changing the contract is still allowed.
    await first.close();
    const resized = { ...photos, image: { ...photos.image, variants: { thumb: { ...photos.image.variants.thumb, width: 48 } } } };
    const second = await env.open({ definitions: [resized] });
    await second.bucket('photos').put({ owner: 'u1', key: 'a.png', contentType: 'image/png', body: await makeImage(20, 20, 'png') });
    await second.close();
    await expect(codeOf(env.open({ definitions: [photos] }))).resolves.toBe('SVC_BUCKET_CONTRACT_CHANGED');
    const renamed = { ...photos, image: { ...photos.image, variants: { small: { ...photos.image.variants.thumb, width: 48 } } } };
    await expect(codeOf(env.open({ definitions: [renamed] }))).resolves.toBe('SVC_BUCKET_CONTRACT_CHANGED');
    const added = {
      ...resized,
      image: {
        ...resized.image,
        variants: { ...resized.image.variants, big: { width: 200, height: 200, fit: 'cover' as const, format: 'webp' as const, quality: 80 } },
      },
    };
    await expect(codeOf(env.open({ definitions: [added] }))).resolves.toBe('SVC_BUCKET_CONTRACT_CHANGED');
    // The unchanged contract still opens; format/quality are not geometry.
    const requality = { ...resized, image: { ...resized.image, variants: { thumb: { ...resized.image.variants.thumb, quality: 50 } } } };
    await expect(env.open({ definitions: [requality] })).resolves.toBeDefined();
  });
});

describe('GIF dimensions (frames can exceed the logical screen)', () => {
  it('reports the largest extent over the logical screen and every frame, as decoders render it', async () => {
    const gif = Buffer.from(await makeImage(300, 200, 'gif'));
    expect(gifDimensions(gif)).toEqual({ width: 300, height: 200, frames: 1, complete: true });
    // Declare a tiny 10x10 logical screen: the frame still decodes at 300x200.
    gif.writeUInt16LE(10, 6);
    gif.writeUInt16LE(10, 8);
    expect((await sharp(gif).metadata()).width).toBe(300);
    expect(gifDimensions(gif)).toMatchObject({ width: 300, height: 200, complete: true });
    expect(gifDimensions(gif.subarray(0, 40))).toMatchObject({ complete: false });
    expect(gifDimensions(await makeImage(4, 4, 'png'))).toBeNull();
  });

  it('agrees with sharp (libvips) on an animated GIF: frame count and the extent of each page', async () => {
    const frame = (background: string) =>
      sharp({ create: { width: 120, height: 80, channels: 3, background } })
        .png()
        .toBuffer();
    const gif = await sharp([await frame('red'), await frame('blue'), await frame('green')], { join: { animated: true } })
      .gif()
      .toBuffer();
    gif.writeUInt16LE(10, 6); // a logical screen smaller than every frame
    gif.writeUInt16LE(10, 8);
    const meta = await sharp(gif, { animated: true }).metadata();
    expect(gifDimensions(gif)).toEqual({ width: meta.width, height: meta.pageHeight, frames: meta.pages, complete: true });
  });
});

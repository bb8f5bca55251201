// Pure parts of managed buckets: definitions, effective limits, content sniffing, capabilities, platform env.
import { describe, expect, it } from 'vitest';
import {
  defineBucket,
  deploymentLimitsFromEnv,
  effectiveMaxObjectBytes,
  platformBucketEnvironment,
  quotaViolation,
  signCapability,
  sniffImage,
  verifyCapability,
  verifyContent,
  type BucketDefinitionInput,
} from '../../../src/runtime/index.js';
import { strictestDeployment, NO_USAGE } from '../../../src/runtime/buckets/effective-limits.js';
import { parseUploadMetadata } from '../../../src/runtime/buckets/tus-routes.js';
import { contentDisposition, parseRange } from '../../../src/runtime/buckets/object-response.js';
import { jpeg, png } from './support.js';

const base: BucketDefinitionInput = { name: 'files', ownership: 'user', visibility: 'private', allowedContentTypes: ['image/*', 'text/plain'] };

describe('defineBucket', () => {
  it('fills documented defaults and validates every field', () => {
    const d = defineBucket(base);
    expect(d).toMatchObject({
      browserAccess: 'authenticated',
      resumable: true,
      maxChunkBytes: 8 * 1024 * 1024,
      cacheControl: 'private, no-store',
      description: '',
    });
    expect(defineBucket({ ...base, visibility: 'public' }).cacheControl).toBe('public, max-age=31536000, immutable');
    const bad: Array<[Partial<BucketDefinitionInput>, RegExp]> = [
      [{ name: 'Bad Name' }, /name/],
      [{ allowedContentTypes: [] }, /allowedContentTypes/],
      [{ allowedContentTypes: ['image'] }, /allowedContentTypes/],
      [{ maxObjectBytes: 0 }, /maxObjectBytes/],
      [{ maxChunkBytes: 1.5 }, /maxChunkBytes/],
      [{ browserAccess: 'public' }, /browserAccess/],
      [{ image: { formats: ['gif' as never] } }, /image/],
      [{ allowedContentTypes: ['text/plain'], image: { formats: ['png'] } }, /png is not in allowedContentTypes/],
      [{ image: { formats: ['png'], maxWidth: 100, variants: { big: { width: 200, height: 10, format: 'webp' } } } }, /variant big/],
      [{ extra: 1 } as never, /definition|Unrecognized|extra/i],
    ];
    for (const [patch, message] of bad) {
      expect(() => defineBucket({ ...base, ...patch } as BucketDefinitionInput)).toThrow(message);
      try {
        defineBucket({ ...base, ...patch } as BucketDefinitionInput);
      } catch (error) {
        expect((error as { code: string }).code).toBe('SVC_BUCKET_DEFINITION');
      }
    }
    expect(defineBucket({ ...base, ownership: 'app', visibility: 'public', browserAccess: 'public' }).browserAccess).toBe('public');
  });
});

describe('effective limits', () => {
  const d = defineBucket({ ...base, maxObjectBytes: 100, maxBytes: 1000, perOwnerMaxBytes: 300, maxObjects: 10, perOwnerMaxObjects: 3 });
  const usage = (owner: Partial<typeof NO_USAGE>, bucket: Partial<typeof NO_USAGE> = {}, deployment: Partial<typeof NO_USAGE> = {}) => ({
    owner: { ...NO_USAGE, ...owner },
    bucket: { ...NO_USAGE, ...bucket },
    deployment: { ...NO_USAGE, ...deployment },
  });
  const none = { maxBytes: Infinity, maxObjects: Infinity };

  it('takes the strictest of definition, per-owner and deployment caps, counting reservations', () => {
    expect(quotaViolation(d, none, usage({ bytes: 200, reservedBytes: 50 }), { objects: 1, bytes: 50 })).toBeNull();
    expect(quotaViolation(d, none, usage({ bytes: 200, reservedBytes: 51 }), { objects: 1, bytes: 50 })).toBe('perOwnerMaxBytes');
    expect(quotaViolation(d, none, usage({ objects: 2, reservedObjects: 1 }), { objects: 1, bytes: 1 })).toBe('perOwnerMaxObjects');
    expect(quotaViolation(d, none, usage({}, { bytes: 990 }), { objects: 1, bytes: 20 })).toBe('maxBytes');
    expect(quotaViolation(d, { maxBytes: 10, maxObjects: Infinity }, usage({}), { objects: 1, bytes: 20 })).toBe('SVC_BUCKET_MAX_BYTES');
    expect(quotaViolation(d, { maxBytes: Infinity, maxObjects: 0 }, usage({}), { objects: 1, bytes: 0 })).toBe('SVC_BUCKET_MAX_OBJECTS');
    // A replacement adds no object and only its growth.
    expect(quotaViolation(d, none, usage({ objects: 3, bytes: 290 }), { objects: 0, bytes: 10 })).toBeNull();
    expect(effectiveMaxObjectBytes(d, { maxBytes: 50, maxObjects: 1 })).toBe(50);
    expect(effectiveMaxObjectBytes(d, none)).toBe(100);
  });

  it('reads deployment ceilings from the environment; app code can lower but never raise them', () => {
    expect(deploymentLimitsFromEnv({})).toEqual({ maxBytes: Infinity, maxObjects: Infinity });
    const env = deploymentLimitsFromEnv({ SVC_BUCKET_MAX_BYTES: '1000', SVC_BUCKET_MAX_OBJECTS: '5' });
    expect(strictestDeployment(env, { maxBytes: 10_000, maxObjects: 2 })).toEqual({ maxBytes: 1000, maxObjects: 2 });
    expect(() => deploymentLimitsFromEnv({ SVC_BUCKET_MAX_BYTES: '1e9' })).toThrow(expect.objectContaining({ code: 'SVC_BUCKET_CONFIG' }));
  });
});

describe('content inspection', () => {
  const images = defineBucket({
    ...base,
    allowedContentTypes: ['image/png', 'image/jpeg', 'image/webp', 'image/avif'],
    image: { formats: ['png', 'jpeg', 'webp', 'avif'], maxWidth: 1000, maxHeight: 1000, maxPixels: 500_000 },
  });

  it('reads formats and dimensions from signatures', () => {
    expect(sniffImage(png(33, 44))).toEqual({ format: 'png', type: 'image/png', width: 33, height: 44 });
    expect(sniffImage(jpeg(640, 480))).toEqual({ format: 'jpeg', type: 'image/jpeg', width: 640, height: 480 });
    const gif = Buffer.from('GIF89a\x0a\x00\x14\x00\x00\x00\x00', 'latin1');
    expect(sniffImage(gif)).toMatchObject({ format: 'gif', width: 10, height: 20 });
    const vp8x = Buffer.alloc(30);
    vp8x.write('RIFF', 0, 'latin1');
    vp8x.write('WEBPVP8X', 8, 'latin1');
    vp8x.writeUIntLE(99, 24, 3);
    vp8x.writeUIntLE(49, 27, 3);
    expect(sniffImage(vp8x)).toMatchObject({ format: 'webp', width: 100, height: 50 });
    const avif = Buffer.alloc(64);
    avif.writeUInt32BE(24, 0);
    avif.write('ftypavif', 4, 'latin1');
    avif.write('mif1', 16, 'latin1');
    avif.write('ispe', 32, 'latin1');
    avif.writeUInt32BE(300, 40);
    avif.writeUInt32BE(200, 44);
    expect(sniffImage(avif)).toMatchObject({ format: 'avif', width: 300, height: 200 });
    expect(sniffImage(Buffer.from('hello'))).toBeNull();
  });

  it('never trusts the declared type', () => {
    expect(verifyContent('image/png', png(10, 10), images)).toEqual({ contentType: 'image/png', width: 10, height: 10 });
    expect(() => verifyContent('image/jpeg', png(10, 10), images)).toThrow(expect.objectContaining({ code: 'SVC_BUCKET_TYPE_MISMATCH' }));
    expect(() => verifyContent('image/png', Buffer.from('<script>alert(1)</script>'), images)).toThrow(
      expect.objectContaining({ code: 'SVC_BUCKET_TYPE_MISMATCH' }),
    );
    expect(() => verifyContent('image/png', png(1000, 1000), images)).toThrow(expect.objectContaining({ code: 'SVC_BUCKET_IMAGE_INVALID' }));
    expect(() => verifyContent('image/gif', Buffer.from('GIF89a\x0a\x00\x14\x00', 'latin1'), images)).toThrow(
      expect.objectContaining({ code: 'SVC_BUCKET_TYPE_NOT_ALLOWED' }),
    );
    expect(() => verifyContent('text/plain', png(1, 1), defineBucket(base))).toThrow(expect.objectContaining({ code: 'SVC_BUCKET_TYPE_MISMATCH' }));
    expect(verifyContent('Text/Plain; charset=utf-8', Buffer.from('hi'), defineBucket(base)).contentType).toBe('text/plain');
  });
});

describe('capabilities', () => {
  const key = Buffer.from('s'.repeat(32));
  const now = 1_700_000_000_000;
  const claims = { op: 'upload' as const, bucket: 'files', owner: 'u1', key: 'a.txt', reservation: 'r1', expiresAt: now + 60_000 };

  it('round-trips and binds every claim; any changed byte or other key fails', () => {
    const token = signCapability(key, claims, now);
    expect(verifyCapability(key, token, now, { op: 'upload', bucket: 'files' })).toEqual(claims);
    expect(() => verifyCapability(key, token, now, { op: 'read', bucket: 'files' })).toThrow(
      expect.objectContaining({ code: 'SVC_BUCKET_CAPABILITY_INVALID' }),
    );
    expect(() => verifyCapability(key, token, now, { op: 'upload', bucket: 'other' })).toThrow(
      expect.objectContaining({ code: 'SVC_BUCKET_CAPABILITY_INVALID' }),
    );
    expect(() => verifyCapability(Buffer.from('t'.repeat(32)), token, now, { op: 'upload', bucket: 'files' })).toThrow(
      expect.objectContaining({ code: 'SVC_BUCKET_CAPABILITY_INVALID' }),
    );
    for (let i = 0; i < token.length; i += 7) {
      const c = token[i] === 'A' ? 'B' : 'A';
      const changed = token.slice(0, i) + c + token.slice(i + 1);
      if (changed !== token) expect(() => verifyCapability(key, changed, now, { op: 'upload', bucket: 'files' })).toThrow();
    }
    expect(() => verifyCapability(key, token, now + 60_000, { op: 'upload', bucket: 'files' })).toThrow(
      expect.objectContaining({ code: 'SVC_BUCKET_CAPABILITY_EXPIRED' }),
    );
  });

  it('refuses lifetimes over 24 hours', () => {
    expect(() => signCapability(key, { ...claims, expiresAt: now + 24 * 3600_000 + 1 }, now)).toThrow(
      expect.objectContaining({ code: 'SVC_BUCKET_INVALID_REQUEST' }),
    );
    expect(signCapability(key, { ...claims, expiresAt: now + 24 * 3600_000 }, now)).toContain('.');
  });
});

describe('tus and response helpers', () => {
  it('parses Upload-Metadata and single ranges, and builds safe dispositions', () => {
    expect(parseUploadMetadata(`key ${Buffer.from('a/b.png').toString('base64')},flag`)).toEqual({ key: 'a/b.png', flag: '' });
    expect(() => parseUploadMetadata('a x,a y')).toThrow(expect.objectContaining({ code: 'SVC_BUCKET_INVALID_REQUEST' }));
    expect(parseRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=100-', 100)).toBe('invalid');
    expect(parseRange('bytes=0-1,5-6', 100)).toBeNull();
    expect(contentDisposition('text/html', 'x/"evil".html')).toBe(`attachment; filename="_evil_.html"; filename*=UTF-8''%22evil%22.html`);
    expect(contentDisposition('image/png', 'cat.png')).toMatch(/^inline;/);
  });
});

describe('platformBucketEnvironment', () => {
  it('gives each project an isolated directory, catalog, prefix and a stable derived signing key', () => {
    const a = platformBucketEnvironment('p_one', '/srv/projects/p_one', 'm'.repeat(32), { maxBytes: 1e9, maxObjects: 1000 });
    expect(a).toMatchObject({
      SVC_BUCKET_DIR: '/srv/projects/p_one/buckets',
      SVC_BUCKET_CATALOG: '/srv/projects/p_one/buckets/catalog.sqlite',
      SVC_BUCKET_PREFIX: 'projects/p_one/',
      SVC_BUCKET_MAX_BYTES: '1000000000',
      SVC_BUCKET_MAX_OBJECTS: '1000',
    });
    expect(a.SVC_BUCKET_SIGNING_KEY!.length).toBeGreaterThanOrEqual(32);
    expect(platformBucketEnvironment('p_one', '/elsewhere', 'm'.repeat(32)).SVC_BUCKET_SIGNING_KEY).toBe(a.SVC_BUCKET_SIGNING_KEY);
    expect(platformBucketEnvironment('p_two', '/srv/projects/p_two', 'm'.repeat(32)).SVC_BUCKET_SIGNING_KEY).not.toBe(a.SVC_BUCKET_SIGNING_KEY);
    expect(platformBucketEnvironment('p_one', '/x', 'n'.repeat(32)).SVC_BUCKET_SIGNING_KEY).not.toBe(a.SVC_BUCKET_SIGNING_KEY);
    expect(() => platformBucketEnvironment('../x', '/x', 'm'.repeat(32))).toThrow(expect.objectContaining({ code: 'SVC_BUCKET_CONFIG' }));
    expect(() => platformBucketEnvironment('p', '/x', 'short')).toThrow(expect.objectContaining({ code: 'SVC_BUCKET_CONFIG' }));
  });
});

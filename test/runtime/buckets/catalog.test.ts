// The catalog file rules (regular, non-symlink, owner-only) and the immutable variant contract.
import { renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bucketManagerFromEnv, createBucketManager, createLocalVolumeBackend, type BucketDefinitionInput } from '../../../src/runtime/index.js';
import { SIGNING_KEY, png, tempDir } from './support.js';

const photos = (thumb: { width: number; height: number }): BucketDefinitionInput => ({
  name: 'photos',
  ownership: 'app',
  visibility: 'public',
  allowedContentTypes: ['image/png'],
  image: { formats: ['png'], variants: { thumb: { ...thumb, format: 'webp' } } },
});

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function setup() {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const open = (definitions: BucketDefinitionInput[], catalogPath = join(t.dir, 'catalog.sqlite')) =>
    createBucketManager({ definitions, backend: createLocalVolumeBackend({ root: join(t.dir, 'volume') }), catalogPath, signingKey: SIGNING_KEY, env: {} });
  return { dir: t.dir, open };
}

describe('bucket catalog', () => {
  it('is created as a regular file with owner-only permissions', async () => {
    const { dir, open } = setup();
    const manager = await open([photos({ width: 64, height: 64 })]);
    expect(statSync(join(dir, 'catalog.sqlite')).mode & 0o777).toBe(0o600);
    await manager.close();
  });

  it('refuses a catalog path that is a symlink, at open and when swapped later', async () => {
    const { dir, open } = setup();
    writeFileSync(join(dir, 'elsewhere.sqlite'), '');
    symlinkSync(join(dir, 'elsewhere.sqlite'), join(dir, 'link.sqlite'));
    await expect(open([photos({ width: 64, height: 64 })], join(dir, 'link.sqlite'))).rejects.toMatchObject({ code: 'SVC_BUCKET_CATALOG_UNSAFE' });
    const manager = await open([photos({ width: 64, height: 64 })]);
    await manager.bucket('photos').put({ key: 'a.png', body: png(2, 2), contentType: 'image/png' });
    renameSync(join(dir, 'catalog.sqlite'), join(dir, 'moved.sqlite'));
    symlinkSync(join(dir, 'moved.sqlite'), join(dir, 'catalog.sqlite'));
    await expect(manager.bucket('photos').put({ key: 'b.png', body: png(2, 2), contentType: 'image/png' })).rejects.toMatchObject({
      code: 'SVC_BUCKET_CATALOG_UNSAFE',
    });
    await manager.close();
  });

  it('keeps variant names and geometry immutable once the bucket holds data', async () => {
    const { open } = setup();
    let manager = await open([photos({ width: 64, height: 64 })]);
    await manager.close();
    // No data yet: the contract may still change.
    manager = await open([photos({ width: 32, height: 32 })]);
    await manager.bucket('photos').put({ key: 'a.png', body: png(2, 2), contentType: 'image/png' });
    await manager.close();
    await expect(open([photos({ width: 64, height: 64 })])).rejects.toMatchObject({ code: 'SVC_BUCKET_CONTRACT_CHANGED' });
    manager = await open([photos({ width: 32, height: 32 })]);
    expect(manager.bucket('photos').stat({ key: 'a.png' }).width).toBe(2);
    await manager.close();
  });

  it('opens from the environment with a persisted local signing key and deployment ceilings', async () => {
    const { dir } = setup();
    const env = { SVC_BUCKET_DIR: join(dir, 'b'), SVC_BUCKET_MAX_OBJECTS: '1' };
    const manager = await bucketManagerFromEnv([photos({ width: 64, height: 64 })], env);
    expect(statSync(join(dir, 'b', 'signing-key')).mode & 0o777).toBe(0o600);
    await manager.bucket('photos').put({ key: 'a.png', body: png(2, 2), contentType: 'image/png' });
    await expect(manager.bucket('photos').put({ key: 'b.png', body: png(2, 2), contentType: 'image/png' })).rejects.toMatchObject({
      code: 'SVC_BUCKET_QUOTA_EXCEEDED',
    });
    expect(manager.usage().limits).toEqual({ maxBytes: null, maxObjects: 1 });
    await manager.close();
    await expect(bucketManagerFromEnv([], { SVC_BUCKET_DIR: join(dir, 'c'), NODE_ENV: 'production' })).rejects.toMatchObject({ code: 'SVC_BUCKET_CONFIG' });
    await expect(
      bucketManagerFromEnv([], { SVC_BUCKET_DIR: join(dir, 'd'), SVC_BUCKET_SIGNING_KEY: 'k'.repeat(40), SVC_BUCKET_S3_ENDPOINT: 'http://127.0.0.1:1' }),
    ).rejects.toMatchObject({ code: 'SVC_BUCKET_CONFIG' });
  });
});

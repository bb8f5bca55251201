// Shared setup for image/agent/inventory bucket tests: a real manager over a local volume in a temp dir.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { createBucketManager, createLocalVolumeBackend, type BucketManager, type BucketManagerOptions } from '../../../src/runtime/index.js';

export const SIGNING_KEY = 'k'.repeat(48);

/** A temp dir plus managers opened in it; `cleanup()` closes them and removes the dir. */
export function tempBuckets() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bkt-img-'));
  const opened: BucketManager[] = [];
  return {
    dir,
    async open(options: Partial<BucketManagerOptions> & Pick<BucketManagerOptions, 'definitions'>): Promise<BucketManager> {
      const manager = await createBucketManager({
        backend: createLocalVolumeBackend({ root: join(dir, 'volume') }),
        catalogPath: join(dir, 'catalog.sqlite'),
        signingKey: SIGNING_KEY,
        env: {},
        ...options,
      });
      opened.push(manager);
      return manager;
    },
    async cleanup() {
      for (const m of opened.splice(0)) await m.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A solid-colour test image made by sharp itself (no binary fixtures). */
export function makeImage(width: number, height: number, format: 'png' | 'jpeg' | 'webp' | 'avif' | 'gif'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .toFormat(format)
    .toBuffer();
}

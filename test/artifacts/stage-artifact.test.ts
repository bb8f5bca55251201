// Decoding onto disk: the staged tree equals what decodeArtifact returns in memory, a rejected
// artifact leaves nothing, placing works within and across filesystems, and a bomb costs no memory.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeArtifact, packArtifact, placeStagedArtifact, readDeployConfig, stageArtifact } from '../../src/artifacts/index.js';
import { documentBomb } from './artifact-bomb.js';
import { cleanupApps, makeApp, tempDir } from './make-app.js';
import { skipOrFail } from '../support/require-components.js';

let good: { bytes: Buffer; digest: string };
let appDir: string;
beforeAll(async () => {
  appDir = await makeApp();
  good = await packArtifact(appDir);
});
afterAll(cleanupApps);

/** Feed a buffer in small pieces, as a network body would arrive. */
async function* pieces(bytes: Buffer, size = 1000): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

describe('stageArtifact', () => {
  it('writes exactly the verified files, with their modes, and reports what decodeArtifact reports', async () => {
    const dir = join(await tempDir(), 'staged');
    const staged = await stageArtifact(pieces(good.bytes), dir, { expectedDigest: good.digest });
    const decoded = await decodeArtifact(good.bytes);
    expect(staged).toMatchObject({
      dir,
      digest: decoded.digest,
      gzipBytes: decoded.gzipBytes,
      totalBytes: decoded.totalBytes,
      document: decoded.document,
      config: decoded.config,
    });
    expect(staged.files).toEqual(decoded.files.map(({ content: _content, ...entry }) => entry));
    for (const file of decoded.files) {
      expect(readFileSync(join(dir, file.path)).equals(file.content), file.path).toBe(true);
      expect(statSync(join(dir, file.path)).mode & 0o777, file.path).toBe(file.mode & 0o777);
    }
  });

  it('removes its directory when the artifact is rejected, and never uses an existing one', async () => {
    const parent = await tempDir();
    const flipped = Buffer.from(good.bytes);
    flipped[flipped.length >> 1]! ^= 0xff;
    await expect(stageArtifact(flipped, join(parent, 'a'))).rejects.toHaveProperty('code');
    await expect(stageArtifact(good.bytes, join(parent, 'b'), { expectedDigest: '0'.repeat(64) })).rejects.toMatchObject({
      code: 'SVC_ARTIFACT_DIGEST_MISMATCH',
    });
    expect(await readdir(parent)).toEqual([]);
    await mkdir(join(parent, 'taken'));
    await expect(stageArtifact(good.bytes, join(parent, 'taken'))).rejects.toMatchObject({ code: 'SVC_ARTIFACT_TARGET_EXISTS' });
  });

  it('refuses an artifact-shaped bomb with its size code, writes nothing and holds no contents in memory', async () => {
    const config = await readDeployConfig(appDir);
    const bomb = await documentBomb(config, 5);
    const parent = await tempDir();
    const before = process.memoryUsage().rss;
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
    try {
      await expect(stageArtifact(pieces(bomb, 64 * 1024), join(parent, 'bomb'))).rejects.toMatchObject({ code: 'SVC_ARTIFACT_AGGREGATE_TOO_LARGE' });
    } finally {
      clearInterval(timer);
    }
    expect((peak - before) / (1024 * 1024)).toBeLessThan(64);
    expect(await readdir(parent)).toEqual([]);
  }, 120_000);

  it('a size limit met after the gzip stream broke still wins (413, not a digest mismatch)', async () => {
    const junk = Buffer.alloc(3 * 1024 * 1024, 7); // not gzip, and over the request limit below
    const dir = join(await tempDir(), 'junk');
    await expect(
      stageArtifact(pieces(junk, 64 * 1024), dir, { expectedDigest: 'f'.repeat(64), limits: { maxRequestBytes: 1024 * 1024, maxGzipBytes: 1024 * 1024 } }),
    ).rejects.toMatchObject({ code: 'SVC_ARTIFACT_REQUEST_TOO_LARGE' });
    expect(existsSync(dir)).toBe(false);
  });
});

describe('placeStagedArtifact', () => {
  it('renames the staged tree into place and refuses an existing target', async () => {
    const parent = await tempDir();
    const staged = await stageArtifact(good.bytes, join(parent, '.staging'));
    await placeStagedArtifact(staged, join(parent, 'release'));
    expect(existsSync(staged.dir)).toBe(false);
    expect(readFileSync(join(parent, 'release', 'dist', 'server.js'), 'utf8')).toContain('console.log("up")');
    const again = await stageArtifact(good.bytes, join(parent, '.staging2'));
    await expect(placeStagedArtifact(again, join(parent, 'release'))).rejects.toMatchObject({ code: 'SVC_ARTIFACT_TARGET_EXISTS' });
  });

  it('copies across filesystems, and a full target filesystem is SVC_DISK_FULL with nothing left behind', async (ctx) => {
    const parent = await tempDir();
    const mount = join(parent, 'small');
    await mkdir(mount);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mount], { stdio: 'ignore' });
    } catch {
      skipOrFail(ctx, 'mount -t tmpfs is not permitted here');
    }
    try {
      const staged = await stageArtifact(good.bytes, join(parent, '.staging'));
      await placeStagedArtifact(staged, join(mount, 'release'));
      expect(statSync(join(mount, 'release', 'dist', 'bin', 'start.sh')).mode & 0o777).toBe(0o755);
      expect(existsSync(staged.dir)).toBe(false);

      const big = await packArtifact(
        await makeApp({
          'svc.deploy.json': JSON.stringify({ version: 1, entry: 'dist/server.js' }),
          'dist/server.js': 'x',
          'dist/blob.bin': Buffer.alloc(256 * 1024, 1),
        }),
      );
      const tooBig = await stageArtifact(big.bytes, join(parent, '.staging-big'));
      await expect(placeStagedArtifact(tooBig, join(mount, 'release-2'))).rejects.toMatchObject({ code: 'SVC_DISK_FULL' });
      expect((await readdir(mount)).sort()).toEqual(['release']);
    } finally {
      execFileSync('umount', [mount]);
    }
  });
});

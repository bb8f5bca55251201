import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAndExtractArtifact, decodeArtifact, extractArtifact, packArtifact, type DecodedArtifact } from '../../src/artifacts/index.js';
import { generateHostileFixtures, HOSTILE_DIR, readHostileManifest } from '../../fixtures/generate-hostile.js';
import { cleanupApps, makeApp, tempDir } from './make-app.js';

beforeAll(generateHostileFixtures, 120_000);
afterAll(cleanupApps);

describe('hostile artifacts', () => {
  const manifest = () => readHostileManifest();

  it('covers every hostile kind the decoder must refuse', () => {
    const names = manifest().map((f) => f.name);
    for (const kind of ['traversal', 'absolute-path', 'symlink-entry', 'bad-digest', 'wrong-mode', 'gzip-bomb', 'too-many-files'])
      expect(names).toContain(kind);
    // The named kinds each have a distinct code.
    const named = manifest().filter((f) =>
      ['traversal', 'absolute-path', 'symlink-entry', 'bad-digest', 'wrong-mode', 'gzip-bomb', 'too-many-files'].includes(f.name),
    );
    expect(new Set(named.map((f) => f.code)).size).toBe(named.length);
  });

  // One test per fixture file so a failure names it.
  const fixtureNames = (() => {
    try {
      return readHostileManifest().map((f) => f.name);
    } catch {
      return ['(generated in beforeAll)'];
    }
  })();

  it.each(fixtureNames)(
    '%s is rejected with its own code before any file is written',
    async (name) => {
      const fixture = manifest().find((f) => f.name === name)!;
      const bytes = await readFile(join(HOSTILE_DIR, fixture.file));
      const parent = await tempDir();
      const target = join(parent, 'release');
      await expect(decodeAndExtractArtifact(bytes, target)).rejects.toMatchObject({ code: fixture.code });
      expect(existsSync(target)).toBe(false);
      expect(await readdir(parent)).toEqual([]);
    },
    60_000,
  );

  it('stops a gzip bomb early with bounded memory (4 GiB inflated size, default limits)', async () => {
    const bytes = await readFile(join(HOSTILE_DIR, 'gzip-bomb.svc.gz'));
    globalThis.gc?.();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    const timer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 5);
    try {
      await expect(decodeArtifact(bytes)).rejects.toMatchObject({ code: 'SVC_ARTIFACT_DECOMPRESSED_TOO_LARGE' });
    } finally {
      clearInterval(timer);
    }
    const after = process.memoryUsage();
    // 4 GiB would be inflated without the limit; 512 MiB is the limit; growth stays far below both.
    expect(peakRss - before.rss).toBeLessThan(128 * 1024 * 1024);
    expect(after.heapUsed - before.heapUsed).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);

  it('stops reading a streamed bomb as soon as the decompressed limit is passed', async () => {
    const member = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
    let sent = 0;
    const total = 1024; // 16 GiB if fully inflated
    async function* stream(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < total; i++) {
        sent++;
        yield member;
      }
    }
    await expect(decodeArtifact(stream(), { limits: { maxDecompressedBytes: 64 * 1024 * 1024 } })).rejects.toMatchObject({
      code: 'SVC_ARTIFACT_DECOMPRESSED_TOO_LARGE',
    });
    expect(sent).toBeLessThan(16);
  }, 60_000);
});

describe('decode limits and digests', () => {
  let good: { bytes: Buffer; digest: string };
  beforeAll(async () => {
    const app = await makeApp({
      'svc.deploy.json': JSON.stringify({ version: 1, entry: 'dist/server.js' }),
      'dist/server.js': 'console.log(1)\n',
      'dist/big.txt': 'z'.repeat(50_000),
    });
    good = await packArtifact(app);
  });

  it('request and gzip size limits, for buffers and streams', async () => {
    await expect(decodeArtifact(good.bytes, { limits: { maxRequestBytes: good.bytes.length - 1 } })).rejects.toMatchObject({
      code: 'SVC_ARTIFACT_REQUEST_TOO_LARGE',
    });
    await expect(decodeArtifact(good.bytes, { limits: { maxGzipBytes: good.bytes.length - 1 } })).rejects.toMatchObject({ code: 'SVC_ARTIFACT_TOO_LARGE' });
    async function* chunks(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < good.bytes.length; i += 100) yield good.bytes.subarray(i, i + 100);
    }
    await expect(decodeArtifact(chunks(), { limits: { maxGzipBytes: good.bytes.length - 1 } })).rejects.toMatchObject({ code: 'SVC_ARTIFACT_TOO_LARGE' });
    await expect(decodeArtifact(chunks())).resolves.toMatchObject({ digest: good.digest });
  });

  it('decompressed, file-size, count and aggregate limits', async () => {
    await expect(decodeArtifact(good.bytes, { limits: { maxDecompressedBytes: 10_000 } })).rejects.toMatchObject({
      code: 'SVC_ARTIFACT_DECOMPRESSED_TOO_LARGE',
    });
    await expect(decodeArtifact(good.bytes, { limits: { maxFileBytes: 49_999 } })).rejects.toMatchObject({ code: 'SVC_ARTIFACT_FILE_TOO_LARGE' });
    await expect(decodeArtifact(good.bytes, { limits: { maxFiles: 1 } })).rejects.toMatchObject({ code: 'SVC_ARTIFACT_TOO_MANY_FILES' });
    await expect(decodeArtifact(good.bytes, { limits: { maxAggregateBytes: 50_000 } })).rejects.toMatchObject({ code: 'SVC_ARTIFACT_AGGREGATE_TOO_LARGE' });
  });

  it('artifact digest mismatch → SVC_ARTIFACT_DIGEST_MISMATCH; a flipped byte never passes', async () => {
    await expect(decodeArtifact(good.bytes, { expectedDigest: '0'.repeat(64) })).rejects.toMatchObject({ code: 'SVC_ARTIFACT_DIGEST_MISMATCH' });
    await expect(decodeArtifact(good.bytes, { expectedDigest: good.digest.toUpperCase() })).resolves.toMatchObject({ digest: good.digest });
    const flipped = Buffer.from(good.bytes);
    flipped[flipped.length >> 1]! ^= 0xff;
    await expect(decodeArtifact(flipped, { expectedDigest: good.digest })).rejects.toMatchObject({ code: 'SVC_ARTIFACT_DIGEST_MISMATCH' });
    await expect(decodeArtifact(flipped)).rejects.toHaveProperty('code');
  });

  it('empty input and trailing data are malformed; a failing source surfaces its own error', async () => {
    await expect(decodeArtifact(Buffer.alloc(0))).rejects.toMatchObject({ code: 'SVC_ARTIFACT_MALFORMED' });
    await expect(decodeArtifact(Buffer.concat([good.bytes, Buffer.from('trailing junk')]))).rejects.toMatchObject({ code: 'SVC_ARTIFACT_MALFORMED' });
    await expect(decodeArtifact(Buffer.concat([good.bytes, good.bytes]))).rejects.toMatchObject({ code: 'SVC_ARTIFACT_MALFORMED' });
    const boom = new Error('connection reset');
    async function* broken(): AsyncGenerator<Uint8Array> {
      yield good.bytes.subarray(0, 50);
      throw boom;
    }
    await expect(decodeArtifact(broken())).rejects.toBe(boom);
  });

  it('extraction refuses an existing target and never writes outside it', async () => {
    const decoded = await decodeArtifact(good.bytes);
    const parent = await tempDir();
    await extractArtifact(decoded, join(parent, 'r1'));
    await expect(extractArtifact(decoded, join(parent, 'r1'))).rejects.toMatchObject({ code: 'SVC_ARTIFACT_TARGET_EXISTS' });
    const evil: DecodedArtifact = { ...decoded, files: [{ ...decoded.files[0]!, path: '../escape.js' }] };
    await expect(extractArtifact(evil, join(parent, 'r2'))).rejects.toMatchObject({ code: 'SVC_ARTIFACT_PATH_TRAVERSAL' });
    expect((await readdir(parent)).sort()).toEqual(['r1']);
  });
});

// Decompression bombs uploaded to the release route are refused with their too-large code while the
// control plane's memory stays flat: the artifact is decoded onto disk a chunk at a time.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDeployConfig } from '../../src/artifacts/index.js';
import { documentBomb, zeroBomb } from '../artifacts/artifact-bomb.js';
import { ROOT, removeDataDir, startPlane, type Plane } from './release-support.js';

const MiB = 1024 * 1024;
let plane: Plane;

beforeAll(async () => {
  plane = await startPlane({ env: { SVC_SANDBOX: 'off' } });
  // The first upload starts the process's decoder thread (a fixed cost of the process, not of what is
  // uploaded): a refused upload of a few bytes starts it before the bombs are measured.
  const junk = Buffer.from('not an artifact');
  const refused = await plane.upload({ bytes: junk, digest: createHash('sha256').update(junk).digest('hex') });
  expect(refused.statusCode).toBeGreaterThanOrEqual(400);
}, 120_000);
afterAll(async () => {
  await plane?.close();
  if (plane) await removeDataDir(plane.dataDir);
});

/** Upload `bytes` and report the answer and how far RSS rose above where it started. */
async function uploadMeasured(bytes: Buffer): Promise<{ status: number; code: string; growthMiB: number }> {
  const digest = createHash('sha256').update(bytes).digest('hex');
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
  try {
    const res = await plane.upload({ bytes, digest });
    peak = Math.max(peak, process.memoryUsage().rss);
    return { status: res.statusCode, code: res.json().error?.code, growthMiB: (peak - before) / MiB };
  } finally {
    clearInterval(timer);
  }
}

function leftovers(): string[] {
  const project = join(plane.dataDir, 'projects', plane.project.id);
  return ['tmp', 'releases'].flatMap((dir) => (existsSync(join(project, dir)) ? readdirSync(join(project, dir)).map((name) => `${dir}/${name}`) : []));
}

describe('decompression bombs on upload', () => {
  it('an artifact-shaped bomb (~0.5 MB of gzip, 5 × 64 MiB files declared) is refused with SVC_ARTIFACT_AGGREGATE_TOO_LARGE; RSS stays flat', async () => {
    const bomb = await documentBomb(await readDeployConfig(join(ROOT, 'fixtures', 'apps', 'healthy')), 5);
    expect(bomb.length).toBeLessThan(2 * MiB);
    const result = await uploadMeasured(bomb);
    expect(result).toMatchObject({ status: 413, code: 'SVC_ARTIFACT_AGGREGATE_TOO_LARGE' });
    // Before, the four accepted files (256 MiB) and their base64 were held in memory: ~300 MiB more RSS.
    expect(result.growthMiB).toBeLessThan(64);
    expect(leftovers()).toEqual([]);
  }, 120_000);

  it('a plain gzip bomb (1 GiB of zeros in ~1 MB) is refused with SVC_ARTIFACT_DECOMPRESSED_TOO_LARGE; RSS stays flat', async () => {
    const bomb = await zeroBomb(1024 * MiB);
    expect(bomb.length).toBeLessThan(2 * MiB);
    const result = await uploadMeasured(bomb);
    expect(result).toMatchObject({ status: 413, code: 'SVC_ARTIFACT_DECOMPRESSED_TOO_LARGE' });
    expect(result.growthMiB).toBeLessThan(64);
    expect(leftovers()).toEqual([]);
  }, 120_000);
});

describe('upload staging left by a crash', () => {
  it('is removed when the control plane starts again', async () => {
    const tmp = join(plane.dataDir, 'projects', plane.project.id, 'tmp');
    mkdirSync(join(tmp, 'upload-0123456789ab', 'dist'), { recursive: true });
    writeFileSync(join(tmp, 'upload-0123456789ab', 'dist', 'half.bin'), Buffer.alloc(1024));
    writeFileSync(join(tmp, 'unrelated.txt'), 'kept');
    await plane.close();
    plane = await startPlane({ dataDir: plane.dataDir, reuse: { owner: plane.owner, project: plane.project }, env: { SVC_SANDBOX: 'off' } });
    expect(readdirSync(tmp)).toEqual(['unrelated.txt']);
  }, 60_000);
});

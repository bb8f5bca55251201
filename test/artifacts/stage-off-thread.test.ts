// Staging in the decoder thread: the same result and the same codes as stageArtifact, the sender's own
// failure comes back as itself, and the work really happens off the event loop (it goes on while the
// loop is blocked).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packArtifact, readDeployConfig, stageArtifact, stageArtifactOffThread, warmArtifactDecoder } from '../../src/artifacts/index.js';
import { SvcError } from '../../src/core/errors.js';
import { generateHostileFixtures, HOSTILE_DIR, readHostileManifest } from '../../fixtures/generate-hostile.js';
import { documentBomb } from './artifact-bomb.js';
import { cleanupApps, makeApp, tempDir } from './make-app.js';

let good: { bytes: Buffer; digest: string };
beforeAll(async () => {
  warmArtifactDecoder();
  await generateHostileFixtures();
  good = await packArtifact(await makeApp());
}, 120_000);
afterAll(cleanupApps);

async function* pieces(bytes: Buffer, size = 1000): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

describe('stageArtifactOffThread', () => {
  it('stages what stageArtifact stages, from a body in small pieces or in one piece', async () => {
    const onLoop = await stageArtifact(pieces(good.bytes), join(await tempDir(), 'a'), { expectedDigest: good.digest });
    const small = await stageArtifactOffThread(pieces(good.bytes), join(await tempDir(), 'b'), { expectedDigest: good.digest });
    const whole = await stageArtifactOffThread(pieces(good.bytes, good.bytes.length), join(await tempDir(), 'c'), { expectedDigest: good.digest });
    for (const staged of [small, whole]) {
      expect({ ...staged, dir: '' }).toEqual({ ...onLoop, dir: '' });
      for (const file of staged.files) expect(await readFile(join(staged.dir, file.path))).toEqual(await readFile(join(onLoop.dir, file.path)));
    }
  });

  it.each(readHostileManifest().map((f) => f.name))(
    '%s is refused with the same code as on the event loop, leaving nothing',
    async (name) => {
      const fixture = readHostileManifest().find((f) => f.name === name)!;
      const bytes = await readFile(join(HOSTILE_DIR, fixture.file));
      const parent = await tempDir();
      await expect(stageArtifactOffThread(pieces(bytes, 64 * 1024), join(parent, 'staged'))).rejects.toMatchObject({ code: fixture.code });
      expect(readdirSync(parent)).toEqual([]);
    },
    60_000,
  );

  it('a digest mismatch and a size limit keep their codes and details', async () => {
    const wrong = 'f'.repeat(64);
    await expect(stageArtifactOffThread(pieces(good.bytes), join(await tempDir(), 's'), { expectedDigest: wrong })).rejects.toMatchObject({
      code: 'SVC_ARTIFACT_DIGEST_MISMATCH',
    });
    await expect(stageArtifactOffThread(pieces(good.bytes), join(await tempDir(), 's'), { limits: { maxGzipBytes: 100 } })).rejects.toMatchObject({
      code: 'SVC_ARTIFACT_TOO_LARGE',
    });
    const rejection = await stageArtifactOffThread(pieces(good.bytes), join(await tempDir(), 's'), { limits: { maxFiles: 2 } }).catch((e: unknown) => e);
    expect(rejection).toBeInstanceOf(SvcError);
    expect(rejection).toMatchObject({ code: 'SVC_ARTIFACT_TOO_MANY_FILES', status: 413 });
  });

  it("the body's own failure is rethrown as the very same error, and nothing is left", async () => {
    const own = new Error('socket hang up');
    const stalled = new SvcError('SVC_UPLOAD_STALLED', 'no bytes', { details: { idleTimeoutMs: 5 } });
    for (const failure of [own, stalled]) {
      async function* failing(): AsyncGenerator<Uint8Array> {
        yield good.bytes.subarray(0, 100);
        throw failure;
      }
      const parent = await tempDir();
      await expect(stageArtifactOffThread(failing(), join(parent, 's'))).rejects.toBe(failure);
      expect(readdirSync(parent)).toEqual([]);
    }
  });

  it('the decoder thread runs at a lower priority than the event loop (nice 10 vs 0)', async () => {
    await stageArtifactOffThread(pieces(good.bytes), join(await tempDir(), 'n'), { expectedDigest: good.digest });
    const nice = (task: string): number => {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    };
    expect(getPriority(0)).toBe(0);
    expect(readdirSync('/proc/self/task').map(nice)).toContain(10);
  });

  it('decodes while the event loop is blocked: a bomb is inflated and written meanwhile, then refused with its code', async () => {
    const bomb = await documentBomb(await readDeployConfig(await makeApp()), 5);
    const dir = join(await tempDir(), 'staged');
    const verdict = stageArtifactOffThread(pieces(bomb, bomb.length), dir).then(
      () => undefined,
      (error: unknown) => error,
    );
    await new Promise((resolve) => setTimeout(resolve, 50)); // the whole body is handed over by now
    // Nothing runs on this thread until the loop below ends: on the event loop, no byte would be decoded.
    const fourth = join(dir, 'dist', 'bomb-003.bin');
    const deadline = Date.now() + 30_000;
    let written = false;
    while (!written && Date.now() < deadline) written = existsSync(fourth);
    expect(written).toBe(true);
    expect(await verdict).toMatchObject({ code: 'SVC_ARTIFACT_AGGREGATE_TOO_LARGE' });
    expect(existsSync(dir)).toBe(false);
  }, 60_000);
});

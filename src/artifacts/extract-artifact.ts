// Materialize a verified artifact: write into a temp sibling, fsync everything, then rename into place.
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fsyncDirectory } from '../core/atomic-write.js';
import { SvcError } from '../core/errors.js';
import type { DecodedArtifact } from './decode-artifact.js';
import { MODE_EXECUTABLE, MODE_FILE } from './document.js';
import { pathShapeViolation } from './path-rules.js';
import { ioFailure } from '../core/disk-full.js';
import { parentDirectories } from './parent-directories.js';
import { pathExists } from './path-exists.js';

// Files written concurrently; enough to keep the thread pool busy without exhausting descriptors.
const WRITE_CONCURRENCY = 16;

/**
 * Write the files of a decoded artifact to `targetDir`, which must not exist yet. Either the complete
 * tree appears (fsynced) at `targetDir` or nothing does; no file is ever written outside it.
 */
export async function extractArtifact(decoded: DecodedArtifact, targetDir: string): Promise<void> {
  const target = resolve(targetDir);
  if (await pathExists(target)) throw new SvcError('SVC_ARTIFACT_TARGET_EXISTS', `${target} already exists`);
  // Re-check what decodeArtifact checked: a DecodedArtifact may have been built by hand.
  for (const file of decoded.files) {
    const shape = pathShapeViolation(file.path);
    if (shape) throw new SvcError(shape.code, `${JSON.stringify(file.path)} ${shape.rule}`);
    if (file.mode !== MODE_FILE && file.mode !== MODE_EXECUTABLE)
      throw new SvcError('SVC_ARTIFACT_BAD_MODE', `${file.path} has mode 0${file.mode.toString(8)}`);
  }
  const parent = dirname(target);
  await mkdir(parent, { recursive: true });
  const temp = join(parent, `.${basename(target)}.${randomBytes(6).toString('hex')}.extract`);
  await mkdir(temp, { mode: 0o755 });
  try {
    const ordered = parentDirectories(decoded.files.map((file) => file.path));
    for (const dir of ordered) await mkdir(inside(temp, dir), { mode: 0o755 });
    for (let i = 0; i < decoded.files.length; i += WRITE_CONCURRENCY) {
      await Promise.all(decoded.files.slice(i, i + WRITE_CONCURRENCY).map((file) => writeFile(inside(temp, file.path), file.content, file.mode & 0o777)));
    }
    for (const dir of ordered.reverse()) await fsyncDirectory(inside(temp, dir));
    await fsyncDirectory(temp);
    if (await pathExists(target)) throw new SvcError('SVC_ARTIFACT_TARGET_EXISTS', `${target} appeared during extraction`);
    await rename(temp, target);
    await fsyncDirectory(parent);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw ioFailure(error, `extracting into ${target}`);
  }
}

/** Join and prove the result stays below `root` (belt and braces after the path rules). */
function inside(root: string, relative: string): string {
  const full = resolve(root, relative);
  if (!full.startsWith(root + sep)) throw new SvcError('SVC_ARTIFACT_PATH_TRAVERSAL', `${relative} resolves outside the release directory`);
  return full;
}

async function writeFile(path: string, content: Buffer, mode: number): Promise<void> {
  const handle = await open(path, 'wx', mode);
  try {
    await handle.writeFile(content);
    await handle.chmod(mode); // exact mode regardless of umask
    await handle.sync();
  } finally {
    await handle.close();
  }
}

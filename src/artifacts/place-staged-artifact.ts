// Move a staged artifact to its final directory: one rename when both are on the same filesystem,
// otherwise a copy into a temporary sibling of the target that is renamed once complete. Either the
// whole tree appears at the target (fsynced) or nothing does.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, copyFile, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fsyncDirectory } from '../core/atomic-write.js';
import { SvcError } from '../core/errors.js';
import type { StagedArtifact } from './stage-artifact.js';
import { ioFailure } from '../core/disk-full.js';
import { parentDirectories } from './parent-directories.js';
import { pathExists } from './path-exists.js';

/** Put the files of `staged` at `targetDir` (which must not exist); the staging directory is gone afterwards. */
export async function placeStagedArtifact(staged: Pick<StagedArtifact, 'dir' | 'files'>, targetDir: string): Promise<void> {
  const target = resolve(targetDir);
  const parent = dirname(target);
  try {
    if (await pathExists(target)) throw new SvcError('SVC_ARTIFACT_TARGET_EXISTS', `${target} already exists`);
    await mkdir(parent, { recursive: true });
    try {
      await rename(staged.dir, target);
    } catch (error) {
      // Staging on another filesystem than the target (a separately mounted releases directory).
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      await copyTree(staged, target);
      await rm(staged.dir, { recursive: true, force: true });
    }
    await fsyncDirectory(parent);
  } catch (error) {
    throw ioFailure(error, `placing the release files at ${target}`);
  }
}

async function copyTree(staged: Pick<StagedArtifact, 'dir' | 'files'>, target: string): Promise<void> {
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.extract`);
  await mkdir(temp, { mode: 0o755 });
  try {
    const ordered = parentDirectories(staged.files.map((file) => file.path));
    for (const dir of ordered) await mkdir(join(temp, dir), { mode: 0o755 });
    for (const file of staged.files) {
      const to = join(temp, file.path);
      await copyFile(join(staged.dir, file.path), to, constants.COPYFILE_EXCL);
      await chmod(to, file.mode & 0o777);
      const handle = await open(to, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
    for (const dir of ordered.reverse()) await fsyncDirectory(join(temp, dir));
    await fsyncDirectory(temp);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
}

// Filesystem steps of project deletion: verify that the project directory and its parents are real
// directories (never symbolic links), then remove the tree without following links. The fs
// operations are passed in, so tests can make removal fail at a chosen path.
import { chmod, lstat, readdir, realpath, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { SvcError } from '../core/errors.js';

/** The filesystem operations deletion uses (node:fs/promises by default). */
export interface DeletionFs {
  lstat(path: string): Promise<{ isDirectory(): boolean; isSymbolicLink(): boolean; mode: number }>;
  realpath(path: string): Promise<string>;
  readdir(path: string): Promise<string[]>;
  chmod(path: string, mode: number): Promise<void>;
  unlink(path: string): Promise<void>;
  rmdir(path: string): Promise<void>;
}

/** The real filesystem. */
export const nodeDeletionFs: DeletionFs = { lstat, realpath, readdir: (path) => readdir(path), chmod, unlink, rmdir };

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * Check `dataDir`, `dataDir/<parent>` and the target below them are real directories, and that the
 * target resolves to exactly where it should. Returns false when the target no longer exists
 * (a retry after an earlier removal). Throws SVC_SITE_PATH_UNSAFE otherwise.
 */
export async function verifyRealDirectory(fs: DeletionFs, dataDir: string, parts: readonly string[]): Promise<boolean> {
  const unsafe = (path: string, why: string): never => {
    throw new SvcError('SVC_SITE_PATH_UNSAFE', `${path} ${why}; nothing was removed.`);
  };
  let path = dataDir;
  const chain = [dataDir, ...parts.map((part) => (path = join(path, part)))];
  for (const [index, dir] of chain.entries()) {
    let info;
    try {
      info = await fs.lstat(dir);
    } catch (error) {
      // Missing (a retry after an earlier removal, or logs never written): nothing left to remove.
      if (isMissing(error) && index > 0) return false;
      throw error;
    }
    if (info.isSymbolicLink()) unsafe(dir, 'is a symbolic link');
    if (!info.isDirectory()) unsafe(dir, 'is not a directory');
  }
  const expected = join(await fs.realpath(dataDir), ...parts);
  if ((await fs.realpath(chain[chain.length - 1]!)) !== expected) unsafe(chain[chain.length - 1]!, `does not resolve to ${expected}`);
  return true;
}

/**
 * Remove a directory tree without following symbolic links (links are unlinked, never entered).
 * Directories are made owner-writable first (release directories are read-only). `last` names
 * entries of the top directory removed after the others (the runtime files, so a failure part-way
 * leaves the previous release startable for as long as possible).
 */
export async function removeTree(fs: DeletionFs, dir: string, last: readonly string[] = []): Promise<void> {
  let info;
  try {
    info = await fs.lstat(dir);
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  if (!info.isDirectory() || info.isSymbolicLink()) {
    await fs.unlink(dir);
    return;
  }
  if ((info.mode & 0o700) !== 0o700) await fs.chmod(dir, info.mode | 0o700);
  const names = (await fs.readdir(dir)).sort((a, b) => Number(last.includes(a)) - Number(last.includes(b)) || a.localeCompare(b));
  for (const name of names) await removeTree(fs, join(dir, name));
  await fs.rmdir(dir);
}

// Last step before a release directory is used: make the platform package importable as `svc`
// (`import Database from 'svc/sqlite'`, `svc/runtime`), then make the whole directory read-only.
import { chmod, lstat, mkdir, readdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { SvcError } from '../src/core/errors.js';

export interface PrepareReleaseDirOptions {
  /** The extracted release directory. */
  releaseDir: string;
  /** Root of the installed svc package (the directory holding its package.json). */
  platformPackageDir: string;
}

/**
 * Link `<releaseDir>/node_modules/svc` → the platform package, then remove write permission from
 * every file and directory. A release that ships its own `node_modules/svc` is rejected: the
 * platform provides that name.
 */
export async function prepareReleaseDir(options: PrepareReleaseDirOptions): Promise<void> {
  const modules = join(options.releaseDir, 'node_modules');
  const link = join(modules, 'svc');
  if (
    await lstat(link).then(
      () => true,
      () => false,
    )
  ) {
    throw new SvcError('SVC_VALIDATION', 'The release contains node_modules/svc; that name is provided by the platform');
  }
  await mkdir(modules, { recursive: true });
  await symlink(options.platformPackageDir, link, 'dir');
  await setReadOnly(options.releaseDir, true);
}

/** Remove a release directory made read-only by prepareReleaseDir (release cleanup, site deletion). */
export async function removeReleaseDir(releaseDir: string): Promise<void> {
  if (
    await lstat(releaseDir).then(
      () => true,
      () => false,
    )
  )
    await setReadOnly(releaseDir, false);
  await rm(releaseDir, { recursive: true, force: true });
}

/** Walk the tree without following symbolic links: read-only (a-w) or owner-writable (u+w). */
async function setReadOnly(dir: string, readOnly: boolean): Promise<void> {
  const info = await lstat(dir);
  if (!readOnly) await chmod(dir, info.mode | 0o700);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) await setReadOnly(path, readOnly);
    else await chmod(path, readOnly ? (await lstat(path)).mode & 0o555 : (await lstat(path)).mode | 0o200);
  }
  if (readOnly) await chmod(dir, info.mode & 0o555);
}

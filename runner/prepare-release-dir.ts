// Last step before a release directory is used: make the platform package importable by its name
// (`import Database from '@svc-dev/svc/sqlite'`, `@svc-dev/svc/runtime`) and by the plain `svc` that
// releases built before the rename import, then make the whole directory read-only.
import { chmod, lstat, mkdir, readdir, rm, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SvcError } from '../src/core/errors.js';
import { LEGACY_IMPORT_NAME, PACKAGE_NAME } from '../src/core/package-name.js';

/** The names under node_modules/ that a release resolves to the platform package, the current one first. */
export const PLATFORM_IMPORT_NAMES = [PACKAGE_NAME, LEGACY_IMPORT_NAME] as const;

export interface PrepareReleaseDirOptions {
  /** The extracted release directory. */
  releaseDir: string;
  /** Root of the installed svc package (the directory holding its package.json). */
  platformPackageDir: string;
}

/**
 * Link `<releaseDir>/node_modules/@svc-dev/svc` and `node_modules/svc` → the platform package, then
 * remove write permission from every file and directory. A release that ships either name itself is
 * rejected: the platform provides them.
 */
export async function prepareReleaseDir(options: PrepareReleaseDirOptions): Promise<void> {
  const modules = join(options.releaseDir, 'node_modules');
  for (const name of PLATFORM_IMPORT_NAMES) {
    if (
      await lstat(join(modules, name)).then(
        () => true,
        () => false,
      )
    ) {
      throw new SvcError('SVC_VALIDATION', `The release contains node_modules/${name}; that name is provided by the platform`);
    }
  }
  for (const name of PLATFORM_IMPORT_NAMES) {
    const link = join(modules, name);
    await mkdir(dirname(link), { recursive: true });
    await symlink(options.platformPackageDir, link, 'dir');
  }
  await setReadOnly(options.releaseDir, true);
}

/** Remove a release directory made read-only by prepareReleaseDir (release cleanup, project deletion). */
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

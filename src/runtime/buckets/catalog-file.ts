// The catalog must be a regular, non-symlink file with owner-only permissions. Checked at open (lstat +
// O_NOFOLLOW, created 0600 with O_EXCL) and re-checked before each reservation (same inode, still no symlink).
import { chmodSync, closeSync, constants, fchmodSync, fstatSync, lstatSync, openSync, type Stats } from 'node:fs';
import { RuntimeError } from '../errors.js';

/** Device and inode of the opened catalog, compared on later checks. */
export interface CatalogIdentity {
  readonly dev: number;
  readonly ino: number;
}

function unsafe(path: string, why: string): never {
  throw new RuntimeError('SVC_BUCKET_CATALOG_UNSAFE', `Bucket catalog ${path} ${why}; refusing to use it.`, { expose: true });
}

/** Create the catalog file if missing (0600, never following a symlink) and verify it; returns its identity. */
export function secureCatalogFile(path: string): CatalogIdentity {
  for (const side of [`${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    const info = lstatOrNull(side);
    if (info !== null && !info.isFile()) unsafe(side, 'is not a regular file');
  }
  const before = lstatOrNull(path);
  if (before !== null && before.isSymbolicLink()) unsafe(path, 'is a symbolic link');
  if (before !== null && !before.isFile()) unsafe(path, 'is not a regular file');
  let fd: number;
  try {
    const flags = before === null ? constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW : constants.O_RDWR | constants.O_NOFOLLOW;
    fd = openSync(path, flags, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EEXIST') unsafe(path, 'changed while opening (symlink or race)');
    throw new RuntimeError('SVC_BUCKET_CONFIG', `Cannot open bucket catalog ${path}: ${(error as Error).message}`, { cause: error, expose: true });
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) unsafe(path, 'is not a regular file');
    if (typeof process.getuid === 'function' && info.uid !== process.getuid()) unsafe(path, 'is owned by another user');
    if ((info.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
    return { dev: info.dev, ino: info.ino };
  } finally {
    closeSync(fd);
  }
}

/** Throw SVC_BUCKET_CATALOG_UNSAFE when the path no longer names the opened regular file. */
export function checkCatalogFile(path: string, identity: CatalogIdentity): void {
  const info = lstatOrNull(path);
  if (info === null) unsafe(path, 'has disappeared');
  if (info.isSymbolicLink()) unsafe(path, 'was replaced by a symbolic link');
  if (!info.isFile() || info.ino !== identity.ino || info.dev !== identity.dev) unsafe(path, 'was replaced by another file');
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Give the WAL and shared-memory files owner-only permissions too (SQLite creates them with the umask). */
export function restrictSidecars(path: string): void {
  for (const side of [`${path}-wal`, `${path}-shm`]) {
    const info = lstatOrNull(side);
    if (info !== null && info.isFile() && (info.mode & 0o077) !== 0) chmodSync(side, 0o600);
  }
}

// Walk the included paths of an app: regular files only, every forbidden kind rejected with its own code.
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SvcError } from '../core/errors.js';
import { deployConfigDefaults, type DeployConfig } from './deploy-config.js';
import { MODE_EXECUTABLE, MODE_FILE } from './document.js';
import type { ArtifactLimits } from './limits.js';
import { compareUtf8, forbiddenNameReason, pathShapeViolation } from './path-rules.js';

/** A regular file found by the walk: artifact path plus what lstat said. */
export interface WalkedFile {
  path: string;
  absolute: string;
  size: number;
  mode: number;
}

/** The roots an artifact may hold files under: the include paths plus the migrations directory. */
export function artifactRoots(config: DeployConfig): string[] {
  return [...new Set([...config.include, config.database.migrations])].sort(compareUtf8);
}

/** Normalize a file's permission bits to the two artifact modes (owner execute bit decides). */
function normalizeMode(statMode: number): number {
  return statMode & 0o100 ? MODE_EXECUTABLE : MODE_FILE;
}

/**
 * Collect every regular file under the included paths, sorted by UTF-8 byte order.
 * Rejects symlinks, special files, forbidden names, bad paths and limit overruns; the first problem throws.
 */
export async function walkIncludedPaths(appDir: string, config: DeployConfig, limits: ArtifactLimits, onFile?: (count: number) => void): Promise<WalkedFile[]> {
  const found = new Map<string, WalkedFile>();
  let aggregate = 0;

  const add = (file: WalkedFile): void => {
    if (found.has(file.path)) {
      if (found.get(file.path)!.absolute === file.absolute) return; // overlapping include paths
      throw new SvcError('SVC_ARTIFACT_DUPLICATE_PATH', `Two files map to the artifact path ${file.path} (names differing only in Unicode normalization)`);
    }
    if (found.size + 1 > limits.maxFiles) throw new SvcError('SVC_ARTIFACT_TOO_MANY_FILES', `More than ${limits.maxFiles} files in the included paths`);
    if (file.size > limits.maxFileBytes)
      throw new SvcError('SVC_ARTIFACT_FILE_TOO_LARGE', `${file.path} is ${file.size} bytes; the limit is ${limits.maxFileBytes}`);
    aggregate += file.size;
    if (aggregate > limits.maxAggregateBytes)
      throw new SvcError('SVC_ARTIFACT_AGGREGATE_TOO_LARGE', `The included files exceed ${limits.maxAggregateBytes} bytes together`);
    found.set(file.path, file);
    onFile?.(found.size);
  };

  const visit = async (relative: string, absolute: string, kind: { isSymbolicLink(): boolean; isDirectory(): boolean; isFile(): boolean }): Promise<void> => {
    const shape = pathShapeViolation(relative);
    if (shape) throw new SvcError(shape.code, `${JSON.stringify(relative)} ${shape.rule}`);
    if (kind.isSymbolicLink()) throw new SvcError('SVC_ARTIFACT_SYMLINK', `${relative} is a symbolic link; artifacts hold regular files only`);
    if (kind.isDirectory()) {
      const entries = (await readdir(absolute, { withFileTypes: true })).sort((a, b) => compareUtf8(a.name, b.name));
      // Visit siblings concurrently but report the first problem in name order, so errors are reproducible.
      const settled = await Promise.allSettled(
        entries.map(async (entry) => {
          const name = entry.name.normalize('NFC');
          const reason = forbiddenNameReason(name);
          const childRelative = `${relative}/${name}`;
          if (reason) throw new SvcError('SVC_ARTIFACT_FORBIDDEN_FILE', `${childRelative} ${reason}`);
          await visit(childRelative, join(absolute, entry.name), entry);
        }),
      );
      const failed = settled.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      return;
    }
    if (!kind.isFile()) throw new SvcError('SVC_ARTIFACT_SPECIAL_FILE', `${relative} is a special file (FIFO, socket or device)`);
    const stat = await lstat(absolute);
    add({ path: relative, absolute, size: stat.size, mode: normalizeMode(stat.mode) });
  };

  for (const root of artifactRoots(config)) {
    const isMigrations = root === config.database.migrations && !config.include.includes(root);
    const absolute = await checkRoot(appDir, root, isMigrations && root === deployConfigDefaults.databaseMigrations);
    if (absolute === undefined) continue;
    await visit(root, absolute, await lstat(absolute));
  }
  if (!found.has(config.entry)) throw new SvcError('SVC_ARTIFACT_ENTRY_MISSING', `The entry ${config.entry} is not a file in the included paths`);
  return [...found.values()].sort((a, b) => compareUtf8(a.path, b.path));
}

/** lstat every segment of a root so a symlinked parent cannot smuggle outside files in; undefined when optional and absent. */
async function checkRoot(appDir: string, root: string, optional: boolean): Promise<string | undefined> {
  const segments = root.split('/');
  let absolute = appDir;
  for (let i = 0; i < segments.length; i++) {
    absolute = join(absolute, segments[i]!);
    const shown = segments.slice(0, i + 1).join('/');
    let stat;
    try {
      stat = await lstat(absolute);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      if (optional) return undefined;
      throw new SvcError('SVC_CONFIG_PATH_NOT_FOUND', `Included path ${root} does not exist in ${appDir}`);
    }
    const reason = forbiddenNameReason(segments[i]!);
    if (reason) throw new SvcError('SVC_ARTIFACT_FORBIDDEN_FILE', `${shown} ${reason}`);
    if (stat.isSymbolicLink()) throw new SvcError('SVC_ARTIFACT_SYMLINK', `${shown} is a symbolic link; artifacts hold regular files only`);
    if (i < segments.length - 1 && !stat.isDirectory())
      throw new SvcError('SVC_CONFIG_PATH_NOT_FOUND', `Included path ${root} does not exist (${shown} is not a directory)`);
  }
  return absolute;
}

// Looking programs up the way a shell would, for the places that need a path before running
// anything (sandbox tools, the svc hint of `svc create`, the test browser).
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The usual system folders, searched after PATH when a caller asks for them. */
export const SYSTEM_BIN_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** Whether `path` is a file this process may execute. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` in the PATH folders, then `extraDirs`; null when there is none. */
export function findExecutable(name: string, pathEnv: string = process.env.PATH ?? '', extraDirs: readonly string[] = []): string | null {
  for (const dir of [...pathEnv.split(delimiter).filter(Boolean), ...extraDirs]) {
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

// bubblewrap mounts a sandbox's folders as the app's unprivileged uid, so that uid must be able to
// pass through (not list) every folder above them. Only search permission is ever added.
import { chmodSync, statSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { SvcError } from '../../src/core/errors.js';

function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep));
}

/**
 * Add search permission for others (o+x) to `path`'s folders from its parent up to the one of `roots`
 * that holds it (inclusive); folders above that root must already allow it. Paths under no root (the
 * system, the platform package) are left alone.
 */
export function ensureTraversable(path: string, roots: readonly string[]): void {
  const target = resolve(path);
  const top = roots.map((r) => resolve(r)).find((r) => isWithin(r, target) && r !== target);
  if (top === undefined) return;
  for (let dir = dirname(target); isWithin(top, dir); dir = dirname(dir)) {
    const mode = statSync(dir).mode;
    if ((mode & 0o001) === 0) chmodSync(dir, (mode & 0o7777) | 0o001);
    if (dir === top) break;
  }
  for (let above = dirname(top); ; above = dirname(above)) {
    if ((statSync(above).mode & 0o001) === 0) {
      throw new SvcError('SVC_SANDBOX_START_FAILED', `Sandboxed apps cannot reach their folders: ${above} does not let other users pass through it.`);
    }
    if (above === dirname(above)) break;
  }
}

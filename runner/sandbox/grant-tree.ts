// Hand a writable directory tree to the uid a project's apps run under. The control plane (root)
// writes there too (migrations, restores), so ownership is repaired before every start.
import { lchownSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Give `uid:gid` (gid defaults to uid) every entry under `dir` (and `dir` itself) that it does not own yet. Symbolic links
 * are changed themselves, never followed, so a link planted by an app cannot redirect the change.
 */
export function grantTree(dir: string, uid: number, gid: number = uid): void {
  const stack = [dir];
  while (stack.length > 0) {
    const path = stack.pop()!;
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      continue; // Removed meanwhile.
    }
    if (stat.uid !== uid || stat.gid !== gid) {
      try {
        lchownSync(path, uid, gid);
      } catch (error) {
        // An immutable or append-only file cannot change owner; the app could not write it anyway.
        if ((error as NodeJS.ErrnoException).code !== 'EPERM' || path === dir) throw error;
      }
    }
    if (stat.isDirectory()) for (const name of readdirSync(path)) stack.push(join(path, name));
  }
}

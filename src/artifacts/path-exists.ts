// Whether something (a file, folder or link, not followed) is at `path`; errors other than ENOENT are thrown.
import { lstat } from 'node:fs/promises';

export async function pathExists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

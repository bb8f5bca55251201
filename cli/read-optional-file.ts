// The CLI's small state files (credentials, the project link, attempt records) may simply not exist
// yet: reading one answers undefined then, and any other failure is an SvcError naming the file.
import { readFile } from 'node:fs/promises';
import { SvcError } from '../src/core/errors.js';

/** The text of `path`; undefined when it does not exist, SVC_IO when it cannot be read. */
export async function readOptionalFile(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SvcError('SVC_IO', `Cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}

import { join } from 'node:path';

/** Absolute path of the repository root (test/support/../..). */
export const repoRoot = join(import.meta.dirname, '..', '..');

// A release links the svc package it runs on as `node_modules/svc` (an absolute symlink); sandboxes
// mount that package's parts read-only at the same path so the link resolves inside.
import { readlinkSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

/** The absolute target of a release's `node_modules/svc` link, or null when it has none. */
export function linkedPlatformPackage(releaseDir: string): string | null {
  try {
    const target = readlinkSync(join(releaseDir, 'node_modules', 'svc'));
    return isAbsolute(target) ? target : null;
  } catch {
    return null;
  }
}
